/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/** {@link CompoundEntries} against Lucene's own reader of the compound files a real {@link IndexWriter} writes. */
class CompoundEntriesTest {

  @Test
  void theEntriesAreLuceneCompoundReadersFilesWithTheirBytes() throws IOException {
    try (Directory dir = compoundIndex()) {
      SegmentInfos commit = SegmentInfos.readLatestCommit(dir);
      assertTrue(commit.size() > 0);
      for (SegmentCommitInfo segment : commit) {
        assertTrue(segment.info.getUseCompoundFile(), segment.info.name);
        byte[] table = whole(dir, IndexFileNames.segmentFileName(segment.info.name, "", "cfe"));
        List<CompoundEntries.Entry> entries = CompoundEntries.parse(table);
        Map<String, Long> lengths = new TreeMap<>();
        try (Directory compound = segment.info.getCodec().compoundFormat().getCompoundReader(dir, segment.info)) {
          for (String file : compound.listAll()) {
            lengths.put(file, compound.fileLength(file));
          }
          Map<String, Long> parsed = new TreeMap<>();
          byte[] data = whole(dir, IndexFileNames.segmentFileName(segment.info.name, "", "cfs"));
          for (CompoundEntries.Entry e : entries) {
            String name = e.fileName(segment.info.name);
            parsed.put(name, e.length());
            // the bytes the entry names are the file's, as Lucene's reader gives them
            byte[] own = whole(compound, name);
            assertTrue(Arrays.equals(own, Arrays.copyOfRange(data, Math.toIntExact(e.start()),
                Math.toIntExact(e.start() + e.length()))), name);
          }
          assertEquals(lengths, parsed, segment.info.name);
        }
      }
    }
  }

  @Test
  void aTableThatDoesNotEndAtItsFooterDoesNotParse() throws IOException {
    try (Directory dir = compoundIndex()) {
      SegmentCommitInfo segment = SegmentInfos.readLatestCommit(dir).info(0);
      byte[] table = whole(dir, IndexFileNames.segmentFileName(segment.info.name, "", "cfe"));
      int entries = CompoundEntries.parse(table).size();
      assertTrue(entries > 2, "entries: " + entries);
      // 8 bytes fewer: taken as the footer, the last 8 of the last entry's length cannot be read
      byte[] cut = Arrays.copyOf(table, table.length - 8);
      assertThrows(IOException.class, () -> CompoundEntries.parse(cut));
      // one byte more before the footer: the entries end before it begins
      byte[] longer = new byte[table.length + 1];
      int footer = table.length - 16;
      System.arraycopy(table, 0, longer, 0, footer);
      System.arraycopy(table, footer, longer, footer + 1, 16);
      IOException e = assertThrows(IOException.class, () -> CompoundEntries.parse(longer));
      assertTrue(e.getMessage().contains("1 bytes between its last entry (" + entries + ")"), e.getMessage());
      // shorter than a footer
      assertThrows(IOException.class, () -> CompoundEntries.parse(new byte[15]));
    }
  }

  /** An index of one segment in a compound file, with postings, points and doc values. */
  private static Directory compoundIndex() throws IOException {
    Directory dir = new ByteBuffersDirectory();
    IndexWriterConfig config = new IndexWriterConfig().setUseCompoundFile(true);
    config.getMergePolicy().setNoCFSRatio(1.0);
    try (IndexWriter writer = new IndexWriter(dir, config)) {
      for (int i = 0; i < 100; i++) {
        Document doc = new Document();
        doc.add(new StringField("id", "doc-" + i, Field.Store.YES));
        doc.add(new LongPoint("n", i));
        doc.add(new SortedDocValuesField("k", new BytesRef("k" + (i % 7))));
        writer.addDocument(doc);
      }
      writer.forceMerge(1);
    }
    return dir;
  }

  private static byte[] whole(Directory dir, String name) throws IOException {
    try (IndexInput in = dir.openInput(name, IOContext.READONCE)) {
      byte[] bytes = new byte[Math.toIntExact(in.length())];
      in.readBytes(bytes, 0, bytes.length);
      return bytes;
    }
  }
}
