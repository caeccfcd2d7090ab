package io.strict;

import java.util.Locale;

/** A temperature in degrees Celsius. */
public final class Temperature {
  private final double celsius;

  private Temperature(double celsius) {
    this.celsius = celsius;
  }

  /** A temperature of {@code celsius} degrees Celsius. */
  public static Temperature ofCelsius(double celsius) {
    return new Temperature(celsius);
  }

  /** A temperature of {@code fahrenheit} degrees Fahrenheit. */
  public static Temperature ofFahrenheit(double fahrenheit) {
    return new Temperature((fahrenheit - 32) * 5 / 9);
  }

  /** Degrees Celsius. */
  public double celsius() {
    return celsius;
  }

  /** Degrees Fahrenheit, rounded to the nearest whole degree. */
  public long roundedFahrenheit() {
    return Math.round(celsius * 9 / 5);
  }

  /** Whether water freezes at this temperature. */
  public boolean freezing() {
    return celsius < 0;
  }

  /** The temperature as text, such as {@code 21.5 °C}. */
  public String label() {
    return String.format(Locale.ROOT, "%.1f °C", celsius);
  }

  /** The warmer of two temperatures (the first when they are equal). */
  public static Temperature warmer(Temperature first, Temperature second) {
    return second.celsius > first.celsius ? second : first;
  }
}
