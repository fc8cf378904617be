/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The search service: {@code java -jar permafrost-search-service.jar [--property=value ...]}. */
@SpringBootApplication
public class SearchServiceApplication {
  /** Starts the service. */
  public static void main(String[] args) {
    SpringApplication.run(SearchServiceApplication.class, args);
  }
}
