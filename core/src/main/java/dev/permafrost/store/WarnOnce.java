/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;

/**
 * Logs a background failure at WARN once per cause, never once per read: the first failure of each kind (a key
 * such as the store and the exception's class) is logged, later ones of the same kind only at DEBUG. Forgets
 * everything once it has seen many kinds, so a long-running process warns again about a problem that comes back.
 */
final class WarnOnce {
  private static final int MAX_KINDS = 1024;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final Logger log;

  WarnOnce(Logger log) {
    this.log = log;
  }

  /** Logs {@code message} (an SLF4J pattern) at WARN the first time {@code kind} is seen, else at DEBUG. */
  void warn(String kind, String message, Object... args) {
    if (seen.size() >= MAX_KINDS) {
      seen.clear();
    }
    if (seen.add(kind)) {
      log.warn(message + " (logged once for this kind of failure; the next ones at DEBUG)", args);
    } else if (log.isDebugEnabled()) {
      log.debug(message, args);
    }
  }
}
