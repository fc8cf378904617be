/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.util.ArrayUtil;

/**
 * A bucket aggregation: each bucket an ordinal, with its parent's ordinal, its key (a long) and its document
 * count. Keyed buckets find their ordinal in a hash of (parent, key), the last one found kept at hand. Built, each
 * parent's buckets are a {@code P} keyed by what each long key stands for.
 */
abstract class BucketAggregator<P extends AggPartial.Keyed<?, P>> extends Aggregator {
  long[] docCounts = new long[16];
  int[] parents = new int[16];
  long[] keys = new long[16];
  int ordCount;
  private OrdHash hash;
  private int lastParent = -1;
  private long lastKey;
  private int lastOrd;

  BucketAggregator(Aggregator[] subs) {
    super(subs);
  }

  /** A new bucket ordinal. */
  final int newOrd(int parent, long key) {
    if (ordCount == docCounts.length) {
      int size = ArrayUtil.oversize(ordCount + 1, Long.BYTES);
      docCounts = Arrays.copyOf(docCounts, size);
      parents = Arrays.copyOf(parents, size);
      keys = Arrays.copyOf(keys, size);
    }
    parents[ordCount] = parent;
    keys[ordCount] = key;
    return ordCount++;
  }

  /** The ordinal of the bucket with {@code key} under {@code parent}, made if new. */
  final int keyedOrd(int parent, long key) {
    if (parent == lastParent && key == lastKey) {
      return lastOrd;
    }
    if (hash == null) {
      hash = new OrdHash();
    }
    int ord = hash.get(parent, key);
    if (ord < 0) {
      ord = newOrd(parent, key);
      hash.put(parent, key, ord);
    }
    lastParent = parent;
    lastKey = key;
    lastOrd = ord;
    return ord;
  }

  /** The ordinal of bucket {@code index} of {@code n} fixed ones (ranges, filters) under {@code parent}. */
  final int fixedOrd(int parent, int index, int n) {
    int ord = parent * n + index;
    while (ordCount <= ord) {
      newOrd(ordCount / n, ordCount % n);
    }
    return ord;
  }

  final void collectBucket(int doc, int ord) throws IOException {
    docCounts[ord]++;
    for (Aggregator sub : subs) {
      sub.collect(doc, ord);
    }
  }

  /** A parent's buckets, empty. */
  abstract P newBuckets();

  /** Puts {@code bucket} into {@code buckets} under what its long {@code key} stands for. */
  abstract void put(P buckets, long key, Bucket bucket);

  @Override
  AggPartial<?>[] build(int ords) {
    AggPartial<?>[][] subParts = new AggPartial<?>[subs.length][];
    for (int i = 0; i < subs.length; i++) {
      subParts[i] = subs[i].build(ordCount);
    }
    List<P> byParent = new ArrayList<>(ords);
    for (int i = 0; i < ords; i++) {
      byParent.add(null);
    }
    for (int ord = 0; ord < ordCount; ord++) {
      int parent = parents[ord];
      if (parent >= ords) {
        continue;
      }
      P buckets = byParent.get(parent);
      if (buckets == null) {
        buckets = newBuckets();
        byParent.set(parent, buckets);
      }
      AggPartial<?>[] subsOfBucket = new AggPartial<?>[subs.length];
      for (int i = 0; i < subs.length; i++) {
        subsOfBucket[i] = subParts[i][ord];
      }
      put(buckets, keys[ord], new Bucket(docCounts[ord], subsOfBucket));
    }
    return byParent.toArray(AggPartial<?>[]::new);
  }

  /** Open addressing from (parent ordinal, key) to a bucket ordinal. */
  static final class OrdHash {
    private int[] parents = new int[32];
    private long[] keys = new long[32];
    private int[] ords = filled(32);
    private int size;

    private static int[] filled(int n) {
      int[] a = new int[n];
      Arrays.fill(a, -1);
      return a;
    }

    private static int slot(int parent, long key, int mask) {
      long h = (key ^ (key >>> 32)) * 0x9E3779B97F4A7C15L + parent * 0xC2B2AE3D27D4EB4FL;
      return (int) (h ^ (h >>> 29)) & mask;
    }

    int get(int parent, long key) {
      int mask = ords.length - 1;
      for (int s = slot(parent, key, mask); ; s = (s + 1) & mask) {
        if (ords[s] < 0) {
          return -1;
        }
        if (keys[s] == key && parents[s] == parent) {
          return ords[s];
        }
      }
    }

    void put(int parent, long key, int ord) {
      if (2 * (size + 1) > ords.length) {
        int[] oldParents = parents;
        long[] oldKeys = keys;
        int[] oldOrds = ords;
        parents = new int[oldOrds.length * 2];
        keys = new long[oldOrds.length * 2];
        ords = filled(oldOrds.length * 2);
        size = 0;
        for (int i = 0; i < oldOrds.length; i++) {
          if (oldOrds[i] >= 0) {
            put(oldParents[i], oldKeys[i], oldOrds[i]);
          }
        }
      }
      int mask = ords.length - 1;
      int s = slot(parent, key, mask);
      while (ords[s] >= 0) {
        s = (s + 1) & mask;
      }
      parents[s] = parent;
      keys[s] = key;
      ords[s] = ord;
      size++;
    }
  }
}
