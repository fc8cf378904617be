/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

/**
 * A stage of an {@code ES95TSDB} numeric field's pipeline, as its field descriptor names it by a one-byte id: the
 * transforms, each undone by a decoder in the reverse of the order they were applied and each with its own metadata
 * in a block where it was applied, and the payload, always last, which holds the packed values.
 */
enum Es95Stage {
  /** {@code 0x01}: deltas; metadata a ZLong first value, the running sum starting from it. */
  DELTA(0x01),
  /** {@code 0x02}: minus a minimum; metadata a ZLong, added back. */
  OFFSET(0x02),
  /** {@code 0x03}: divided by a common divisor; metadata a VLong {@code gcd - 2}, multiplied back (wrapping). */
  GCD(0x03),
  /**
   * {@code 0x04}: deltas in sub-runs cut where the values turn: metadata a VInt {@code k}, {@code k} VInt ascending
   * cut positions in the block, {@code k + 1} ZLong first values, one per sub-run.
   */
  SPLIT_DELTA(0x04),
  /**
   * {@code 0x05}: doubles as decimal integers (ALP): metadata a byte exponent {@code e}, a byte factor {@code f}
   * (0 to 18 each), a VInt count of exceptions and as many (VInt position, long sortable value) pairs.
   */
  ALP_DOUBLE(0x05),
  /** {@code 0xA1}: the payload: a VInt bits per value, then the values packed as the other TSDB formats pack them. */
  BIT_PACK(0xA1);

  /** The byte a descriptor names the stage by. */
  final int id;

  Es95Stage(int id) {
    this.id = id;
  }

  /** Whether this is a payload stage (the last of a pipeline) rather than a transform. */
  boolean isPayload() {
    return this == BIT_PACK;
  }

  /** The stage of an id, or null for one this reader does not know (a newer format's, or the writer's tests' own). */
  static Es95Stage of(int id) {
    for (Es95Stage s : values()) {
      if (s.id == id) {
        return s;
      }
    }
    return null;
  }
}
