/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import java.io.IOException;
import org.apache.lucene.codecs.CompoundDirectory;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * Starts, all at once, the reads that opening a shard's commit makes, so that a cold open costs two waves of
 * requests instead of one per file: an engine's snapshot keeps no bytes of its files but {@code segments_N} and
 * the {@code .si} files, and Lucene reads the rest one after the other.
 *
 * <p>First wave: every file of the commit, whole if it is small (metadata files, compound entry tables), else its
 * header and footer (Lucene checks both when it opens a data file). Second wave, once a compound file's entry table is
 * in: the same inside each compound file. Lucene's own open then finds its bytes in the cache or in flight.
 */
final class OpeningReads {
  /** Files up to this size are fetched whole; of larger ones, the head and the footer. */
  static final long WHOLE_FILE_BYTES = 64 << 10;
  static final long HEAD_BYTES = 4096;
  static final long FOOTER_BYTES = 16;

  private OpeningReads() {}

  /** Starts the reads opening the last commit in {@code directory} makes; returns without waiting for them. */
  static void start(Directory directory) throws IOException {
    SegmentInfos commit = SegmentInfos.readLatestCommit(directory);
    for (String file : commit.files(true)) {
      prefetch(directory, file);
    }
    for (SegmentCommitInfo segment : commit) {
      if (segment.info.getUseCompoundFile()) {
        try (CompoundDirectory compound = segment.info.getCodec().compoundFormat().getCompoundReader(directory, segment.info)) {
          for (String file : compound.listAll()) {
            prefetch(compound, file);
          }
        }
      }
    }
  }

  private static void prefetch(Directory directory, String file) throws IOException {
    long length = directory.fileLength(file);
    try (IndexInput in = directory.openInput(file, IOContext.DEFAULT)) {
      if (length <= WHOLE_FILE_BYTES) {
        in.prefetch(0, length);
      } else {
        in.prefetch(0, HEAD_BYTES);
        in.prefetch(length - FOOTER_BYTES, FOOTER_BYTES);
      }
    }
  }
}
