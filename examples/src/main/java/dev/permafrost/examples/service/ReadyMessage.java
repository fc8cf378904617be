/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.MountInfo;
import java.util.List;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.stereotype.Component;

/** Prints where the search page is, and one curl command to try, once the service is ready. */
@Component
class ReadyMessage implements ApplicationListener<ApplicationReadyEvent> {
  private final Catalog catalog;

  ReadyMessage(Catalog catalog) {
    this.catalog = catalog;
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    if (!(event.getApplicationContext() instanceof WebServerApplicationContext web)) {
      return;
    }
    String host = event.getApplicationContext().getEnvironment().getProperty("server.address", "127.0.0.1");
    String base = "http://" + host + ":" + web.getWebServer().getPort();
    List<MountInfo> mounted = catalog.list();
    String pattern = mounted.isEmpty() ? "*" : mounted.getFirst().name().replaceAll("[0-9.]+$", "*");
    System.out.println();
    System.out.println("Permafrost search service is ready: " + mounted.size() + " indices mounted.");
    System.out.println("  Search page:  " + base + "/");
    System.out.println("  Try:          curl '" + base + "/indices/" + pattern
        + "/search?q=http.response.status_code:404&size=3'");
    System.out.println("  API and settings: examples/README.md");
    System.out.println();
  }
}
