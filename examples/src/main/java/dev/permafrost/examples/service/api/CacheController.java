/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.api;

import dev.permafrost.store.SharedRegionCache;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** The shared cache: {@code GET /cache/stats}, {@code POST /cache/clear}. */
@RestController
@RequestMapping("/cache")
class CacheController {
  private final SharedRegionCache cache;

  CacheController(SharedRegionCache cache) {
    this.cache = cache;
  }

  @GetMapping("/stats")
  Views.Cache stats() {
    return Views.Cache.of(cache.file().toString(), cache.stats());
  }

  /** Empties every region no fill is writing right now: the next searches are cold. Answers the stats after. */
  @PostMapping("/clear")
  Views.Cache clear() {
    cache.clear();
    return stats();
  }
}
