/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.cache;

import java.util.function.IntFunction;

/**
 * A cache of a fixed number of regions under simulation: only which keys it holds, no bytes. Each
 * {@link #access(long)} reports a hit or a miss; on a miss the policy decides whether to admit the key and what
 * to evict. Not thread-safe.
 */
public interface EvictionPolicy {
  /** A short name for reports. */
  String name();

  /** Accesses {@code key}; true on a hit. */
  boolean access(long key);

  /** Makes a policy for a given capacity, in regions. */
  interface Factory {
    String name();

    EvictionPolicy create(int capacity);

    static Factory of(String name, IntFunction<EvictionPolicy> create) {
      return new Factory() {
        @Override
        public String name() {
          return name;
        }

        @Override
        public EvictionPolicy create(int capacity) {
          return create.apply(capacity);
        }
      };
    }
  }
}
