/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

/**
 * The part of a {@link Slot} that lock-free readers check: its generation, bumped twice (odd while changing) whenever
 * the slot changes hands. A reader that read bytes through a window re-checks it after the read: unchanged means the
 * bytes were its region's (seqlock style). A class of its own so that a window can hold it without naming the slot.
 */
class SlotGeneration {
  /** The generation of windows over heap bytes (kept in the manifest, read directly from the store): never changes. */
  static final SlotGeneration FIXED = new SlotGeneration();

  /** Written only by the slot, under its monitor. */
  volatile int generation;
}
