/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

/** Where a mounted index is in its life: closed (only a summary on the heap), opening, or open (a reader). */
public enum MountState {
  /** Mounted, no reader: a summary of a few KB on the heap. */
  CLOSED,
  /** A reader is being opened (once, however many searches asked). */
  OPENING,
  /** A reader is open and can be leased. */
  OPEN
}
