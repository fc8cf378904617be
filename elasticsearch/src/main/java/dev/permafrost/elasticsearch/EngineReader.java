/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.FilterDirectoryReader;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SoftDeletesDirectoryReaderWrapper;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.FixedBitSet;

/**
 * A shard's commit as the engine searches it: documents deleted by a soft delete ({@code __soft_deletes}) are
 * deleted, and the documents of nested objects (those without {@code _primary_term}, which only a top-level
 * document carries) are hidden, so that any query, count or collector sees exactly the engine's documents.
 *
 * <p>Hiding nested documents costs one pass over {@code _primary_term} in the segments that have them, when the
 * reader opens; a segment without nested documents is passed through as it is.
 */
final class EngineReader extends FilterDirectoryReader {
  static final String SOFT_DELETES = "__soft_deletes";
  static final String PRIMARY_TERM = "_primary_term";

  private EngineReader(DirectoryReader in) throws IOException {
    super(in, new SubReaderWrapper() {
      @Override
      public LeafReader wrap(LeafReader reader) {
        try {
          return topLevelOnly(reader);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    });
  }

  /** Opens the commit in {@code directory} as the engine would search it. */
  static DirectoryReader openEngineView(Directory directory) throws IOException {
    DirectoryReader reader = DirectoryReader.open(directory);
    try {
      return new EngineReader(new SoftDeletesDirectoryReaderWrapper(reader, SOFT_DELETES));
    } catch (UncheckedIOException e) {
      reader.close();
      throw e.getCause();
    } catch (IOException | RuntimeException e) {
      reader.close();
      throw e;
    }
  }

  private static LeafReader topLevelOnly(LeafReader reader) throws IOException {
    if (reader.getFieldInfos().fieldInfo(PRIMARY_TERM) == null) {
      return reader; // not a document of the engine's: nothing to tell apart
    }
    NumericDocValues terms = DocValues.getNumeric(reader, PRIMARY_TERM);
    if (terms.cost() >= reader.maxDoc()) {
      return reader; // every document has one: no nested documents here
    }
    Bits live = reader.getLiveDocs();
    FixedBitSet topLevel = new FixedBitSet(reader.maxDoc());
    for (int doc = terms.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = terms.nextDoc()) {
      if (live == null || live.get(doc)) {
        topLevel.set(doc);
      }
    }
    int numDocs = topLevel.cardinality();
    return new FilterLeafReader(reader) {
      @Override
      public Bits getLiveDocs() {
        return topLevel;
      }

      @Override
      public int numDocs() {
        return numDocs;
      }

      @Override
      public CacheHelper getCoreCacheHelper() {
        return in.getCoreCacheHelper();
      }

      @Override
      public CacheHelper getReaderCacheHelper() {
        return null; // its live documents are not the wrapped reader's
      }
    };
  }

  @Override
  protected DirectoryReader doWrapDirectoryReader(DirectoryReader in) throws IOException {
    return new EngineReader(in);
  }

  @Override
  public CacheHelper getReaderCacheHelper() {
    return null;
  }
}
