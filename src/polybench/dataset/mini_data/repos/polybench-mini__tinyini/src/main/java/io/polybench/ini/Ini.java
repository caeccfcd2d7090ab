package io.polybench.ini;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * An INI document: an ordered set of {@link Section}s, including the unnamed global
 * section for entries that come before the first header.
 *
 * <pre>
 * Ini ini = Ini.load(Path.of("app.ini"));
 * int port = ini.get("server", "port", Integer.class);
 * Duration timeout = ini.get("server", "timeout", Duration.class);
 * </pre>
 */
public final class Ini {

    private static final ValueConverter converter = new ValueConverter();

    private final Map<String, Section> sections = new LinkedHashMap<>();

    public Ini() {
        sections.put("", new Section(""));
    }

    /** Parses {@code text} with the default options. */
    public static Ini parse(String text) {
        return new IniParser().parse(text);
    }

    public static Ini load(Reader reader) {
        return new IniParser().parse(reader);
    }

    public static Ini load(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return load(reader);
        }
    }

    /** The section for entries before the first header (name {@code ""}). */
    public Section globalSection() {
        return sections.get("");
    }

    /** The section called {@code name}, created (empty) if it does not exist yet. */
    public Section section(String name) {
        return sections.computeIfAbsent(name.trim(), Section::new);
    }

    public Optional<Section> findSection(String name) {
        return Optional.ofNullable(sections.get(name));
    }

    public boolean hasSection(String name) {
        return sections.containsKey(name);
    }

    /** Names of the named sections, in order of appearance. */
    public Set<String> sectionNames() {
        Set<String> names = new java.util.LinkedHashSet<>(sections.keySet());
        names.remove("");
        return Collections.unmodifiableSet(names);
    }

    /** All sections, the global one first. */
    public Collection<Section> sections() {
        return Collections.unmodifiableCollection(new ArrayList<>(sections.values()));
    }

    public boolean removeSection(String name) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("The global section cannot be removed");
        }
        return sections.remove(name) != null;
    }

    /** The raw value of {@code key} in {@code section}, or {@code null}. */
    public String get(String section, String key) {
        Section s = sections.get(section);
        return s == null ? null : s.get(key);
    }

    /**
     * The value of {@code key} converted to {@code type} (see {@link ValueConverter} for
     * the supported types).
     *
     * @throws IllegalArgumentException if the key is missing or cannot be converted
     */
    public <T> T get(String section, String key, Class<T> type) {
        String raw = get(section, key);
        if (raw == null) {
            throw new IllegalArgumentException("No value for '" + key + "' in section [" + section + "]");
        }
        return converter.convert(raw, type);
    }

    /** Like {@link #get(String, String, Class)} but returns {@code defaultValue} for a missing key. */
    public <T> T get(String section, String key, Class<T> type, T defaultValue) {
        String raw = get(section, key);
        return raw == null ? defaultValue : converter.convert(raw, type);
    }

    /** The value of {@code key} with {@code ${...}} references expanded (see {@link Interpolator}). */
    public String resolve(String section, String key) {
        return new Interpolator(this).resolve(section, key);
    }

    public Ini put(String section, String key, String value) {
        section(section).put(key, value);
        return this;
    }

    /** Makes {@code type} available to {@link #get(String, String, Class)} for this document. */
    public <T> Ini registerConverter(Class<T> type, Function<String, ? extends T> function) {
        converter.register(type, function);
        return this;
    }

    /** Whether {@link #get(String, String, Class)} can produce values of {@code type}. */
    public boolean canConvertTo(Class<?> type) {
        return converter.supports(type);
    }

    /** The document as INI text (see {@link IniWriter}). */
    @Override
    public String toString() {
        return new IniWriter().write(this);
    }
}
