/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;

/** A bad setting stops start-up, and what is thrown names the property. */
class ConfigurationValidationTest {
  @TempDir Path home;

  @Test
  void aBadSettingStopsStartUpNamingTheProperty() {
    assertRefused("permafrost.cache.size", "--permafrost.cache.size=lots");
    assertRefused("permafrost.cache.size", "--permafrost.cache.size=150%");
    assertRefused("permafrost.pool.maxOpenReaders", "--permafrost.pool.max-open-readers=0");
    assertRefused("permafrost.pool.idle-timeout", "--permafrost.pool.idle-timeout=0s");
    assertRefused("permafrost.repository.uri", "--permafrost.repository.uri=nosuchscheme://bucket/prefix");
    assertRefused("permafrost.repository.max-retries",
        "--permafrost.repository.uri=file:///tmp/x?max_retries=2", "--permafrost.repository.max-retries=3");
  }

  private void assertRefused(String property, String... settings) {
    String[] args = new String[settings.length + 2];
    System.arraycopy(settings, 0, args, 0, settings.length);
    args[settings.length] = "--permafrost.home=" + home;
    args[settings.length + 1] = "--permafrost.sample.enabled=false";
    SpringApplication app = new SpringApplication(SearchServiceApplication.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    Throwable failure = assertThrows(Throwable.class, () -> app.run(args).close());
    StringBuilder messages = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    assertTrue(messages.toString().contains(property), () -> "names " + property + ":\n" + messages);
  }
}
