package io.strict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

class TemperatureTest {
  @Test
  void labelsWithOneDecimal() {
    assertEquals("21.5 °C", Temperature.ofCelsius(21.5).label());
  }

  @Test
  void warmDaysDoNotFreeze() {
    assertFalse(Temperature.ofCelsius(12).freezing());
  }
}
