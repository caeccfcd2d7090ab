package io.polybench.ini;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A named group of {@code key = value} entries. Keys keep the order in which they were
 * first added. The entries before the first {@code [header]} of a file belong to the
 * section whose name is the empty string.
 */
public final class Section {

    private final String name;
    private final Map<String, String> entries = new LinkedHashMap<>();

    Section(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    /** Whether this is the unnamed section holding the entries before the first header. */
    public boolean isGlobal() {
        return name.isEmpty();
    }

    public boolean contains(String key) {
        return entries.containsKey(key);
    }

    /** The raw value of {@code key}, or {@code null} when the key is missing. */
    public String get(String key) {
        return entries.get(key);
    }

    public Optional<String> find(String key) {
        return Optional.ofNullable(entries.get(key));
    }

    public String get(String key, String defaultValue) {
        return entries.getOrDefault(key, defaultValue);
    }

    /**
     * The value of {@code key} as a comma separated list; items are trimmed and empty items
     * dropped. A missing key gives an empty list.
     */
    public List<String> getList(String key) {
        String value = entries.get(key);
        if (value == null || value.isBlank()) {
            return Collections.emptyList();
        }
        List<String> items = new ArrayList<>();
        for (String item : value.split(",")) {
            String trimmed = item.trim();
            if (!trimmed.isEmpty()) {
                items.add(trimmed);
            }
        }
        return items;
    }

    /** Sets {@code key}, returning the previous value or {@code null}. */
    public String put(String key, String value) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("Key must not be blank");
        }
        if (value == null) {
            throw new IllegalArgumentException("Value of '" + key + "' must not be null");
        }
        return entries.put(key.trim(), value);
    }

    public String remove(String key) {
        return entries.remove(key);
    }

    /** The keys, in insertion order. */
    public Set<String> keys() {
        return Collections.unmodifiableSet(entries.keySet());
    }

    public int size() {
        return entries.size();
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** A read-only view of the entries. */
    public Map<String, String> asMap() {
        return Collections.unmodifiableMap(entries);
    }

    @Override
    public String toString() {
        return "[" + name + "] " + entries;
    }
}
