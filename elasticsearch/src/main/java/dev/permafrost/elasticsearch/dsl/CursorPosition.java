/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

/**
 * Where a scroll or a point in time's search stands: after the hit whose ordering values are {@code values}, in the
 * shard of ordinal {@code shard} (its place in the cursor's shards), document {@code doc}. The order is the request's
 * sort, then the implicit tie-breaker {@code _shard_doc}: (shard, document), unique to each hit, so that each page
 * starts exactly after the last and no hit is seen twice or skipped.
 *
 * @param values the last hit's values of the fields that order the search before the tie-breaker (its score when
 *     sorted by score; none in the order of documents)
 * @param shard the last hit's shard ordinal
 * @param doc the last hit's document number in its shard
 */
record CursorPosition(Object[] values, int shard, int doc) {
  CursorPosition {
    assert shard >= 0 && doc >= 0 : shard + "/" + doc;
    values = values.clone();
  }

  /**
   * The {@code _shard_doc} value the node shows for a hit: the shard's ordinal in its upper 32 bits, the document in
   * its lower.
   */
  static long shardDoc(int shard, int doc) {
    return ((long) shard << 32) | (doc & 0xFFFF_FFFFL);
  }

  /** After {@code values} and the hit a {@code _shard_doc} value names; a 400 for a value no hit has. */
  static CursorPosition ofShardDoc(Object[] values, long shardDoc, int shards) {
    long shard = shardDoc >>> 32;
    long doc = shardDoc & 0xFFFF_FFFFL;
    if (shardDoc < 0 || shard >= shards || doc > Integer.MAX_VALUE) {
      throw DslException.illegalArgument("[search_after] value [" + shardDoc + "] of [_shard_doc] names no document"
          + " of the point in time's " + shards + " shard(s)");
    }
    return new CursorPosition(values, (int) shard, (int) doc);
  }

  long shardDoc() {
    return shardDoc(shard, doc);
  }
}
