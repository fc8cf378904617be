/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.elasticsearch.DocumentId;
import dev.permafrost.elasticsearch.EngineDocuments;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.CheckIndex;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/**
 * Synthetic {@code _id}s read back from time_series segments written by the test ({@link SyntheticIdTestSegment}):
 * every document's {@code _id} on fetch equals the one computed independently from its series, timestamp and routing
 * hash; {@code TermQuery} and {@code TermInSetQuery} on {@code _id} find exactly the document and nothing for an id
 * that is not there (wrong series, timestamp or routing hash; not base64; numeric); the terms enumerate and seek in
 * byte order; a series whose first byte is {@code 0xfd} or more is escaped; deleted documents drop out; tombstones have
 * no id; Lucene's CheckIndex finds the synthesized postings consistent. Through both codecs.
 */
class TSDBSyntheticIdPostingsFormatTest {
  /** What the test wrote: key to id, and which keys are deleted or tombstones. */
  private record Written(Map<String, String> ids, Set<String> deleted, Set<String> tombstones, long seed) {}

  private static final int DIGITS_HASH = littleEndianInt(Base64.getUrlDecoder().decode("123456"));

  private static int littleEndianInt(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt();
  }

  private static Written write(Directory dir, String codec, boolean zstd, boolean skipper, long seed)
      throws IOException {
    Random random = new Random(seed);
    Map<String, String> ids = new HashMap<>();
    List<Document> docs = new ArrayList<>();
    Set<String> tombstones = new HashSet<>();
    Set<String> tsids = new HashSet<>();
    int[] firstBytes = {0x00, 0x01, 0x7f, 0x80, 0xfc, 0xfd, 0xfe, 0xff};
    for (int s = 0; s < 40; s++) {
      byte[] tsid;
      do {
        tsid = new byte[6 + random.nextInt(40)];
        random.nextBytes(tsid);
        tsid[0] = (byte) firstBytes[s % firstBytes.length];
        tsid[1] = (byte) s; // no tsid is a prefix of another
      } while (!tsids.add(new String(tsid, StandardCharsets.ISO_8859_1)));
      int hash = s == 3 ? DIGITS_HASH : random.nextInt();
      int n = 1 + random.nextInt(30);
      Set<Long> timestamps = new HashSet<>();
      for (int i = 0; i < n; i++) {
        long ts = 1_795_923_685_891L + (random.nextInt(5) == 0 ? -random.nextInt(1000) : random.nextInt(1_000_000));
        if (s == 7 && i == 0) {
          ts = -5; // before 1970
        }
        if (!timestamps.add(ts)) {
          continue;
        }
        String key = "s" + s + "-" + i;
        ids.put(key, SyntheticIdTestSegment.expectedId(tsid, ts, hash));
        docs.add(SyntheticIdTestSegment.document(key, tsid, ts, hash, skipper));
      }
    }
    for (int i = 0; i < 5; i++) {
      tombstones.add("t" + i);
      docs.add(SyntheticIdTestSegment.tombstone("t" + i));
    }
    Collections.shuffle(docs, random);
    IndexWriterConfig config = new IndexWriterConfig().setCodec(SyntheticIdTestSegment.writingCodec(codec, zstd))
        .setIndexSort(SyntheticIdTestSegment.INDEX_SORT).setMergePolicy(NoMergePolicy.INSTANCE)
        .setMaxBufferedDocs(1000).setUseCompoundFile(random.nextBoolean());
    Set<String> deleted = new HashSet<>();
    try (IndexWriter w = new IndexWriter(dir, config)) {
      int perSegment = docs.size() / 3 + 1;
      for (int i = 0; i < docs.size(); i++) {
        w.addDocument(docs.get(i));
        if (i % perSegment == perSegment - 1) {
          w.commit();
        }
      }
      w.commit();
      List<String> keys = new ArrayList<>(ids.keySet());
      Collections.sort(keys);
      for (int i = 0; i < 8; i++) {
        String key = keys.get(random.nextInt(keys.size()));
        deleted.add(key);
        w.deleteDocuments(new Term("key", key));
      }
      w.commit();
    }
    return new Written(ids, deleted, tombstones, seed);
  }

  private static Query idQuery(String id) {
    return new TermQuery(new Term("_id", DocumentId.encode(id)));
  }

  private static Set<String> keys(IndexSearcher searcher, Query q) throws IOException {
    Set<String> keys = new HashSet<>();
    StoredFields stored = searcher.getIndexReader().storedFields();
    for (ScoreDoc d : searcher.search(q, 1000).scoreDocs) {
      keys.add(stored.document(d.doc).get("key"));
    }
    return keys;
  }

  @Test
  void idsOfTheDefaultCodecAreComputedFoundAndEnumerated() throws IOException {
    check("ES93TSDBDefaultCompressionLucene103Codec", false, true, new Random().nextLong());
  }

  @Test
  void idsOfTheBestCompressionCodecWithoutATsidSkipper() throws IOException {
    check("ES94TSDBBestCompressionLucene104Codec", true, false, new Random().nextLong());
  }

  private static void check(String codec, boolean zstd, boolean skipper, long seed) throws IOException {
    try (Directory dir = new ByteBuffersDirectory()) {
      Written w = write(dir, codec, zstd, skipper, seed);
      String why = codec + ", seed " + seed;
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        assertTrue(reader.leaves().size() >= 3, why);
        for (LeafReaderContext leaf : reader.leaves()) {
          SegmentReader sr = (SegmentReader) leaf.reader();
          assertEquals(codec, sr.getSegmentInfo().info.getCodec().getName(), why);
          assertInstanceOf(Codec.forName(codec).getClass(), sr.getSegmentInfo().info.getCodec(), why);
        }
        idsOnFetch(reader, w, why);
        idQueries(reader, w, why);
        for (LeafReaderContext leaf : reader.leaves()) {
          termsInOrder(leaf.reader(), w, why);
        }
      }
      ByteArrayOutputStream log = new ByteArrayOutputStream();
      try (CheckIndex check = new CheckIndex(dir)) {
        check.setInfoStream(new PrintStream(log, true, StandardCharsets.UTF_8));
        CheckIndex.Status status = check.checkIndex();
        assertTrue(status.clean, why + "\n" + log.toString(StandardCharsets.UTF_8));
      }
    }
  }

  /** Every document's {@code _id} on fetch, as stored fields give it, is the one computed from its doc values. */
  private static void idsOnFetch(DirectoryReader reader, Written w, String why) throws IOException {
    StoredFields stored = reader.storedFields();
    int seen = 0;
    for (int doc = 0; doc < reader.maxDoc(); doc++) {
      Document d = stored.document(doc, Set.of("_id", "key"));
      String key = d.get("key");
      assertNotNull(key, why);
      if (w.tombstones().contains(key)) {
        assertNull(EngineDocuments.id(d), why + ": a tombstone has no _id");
      } else {
        assertEquals(w.ids().get(key), EngineDocuments.id(d), why + ": " + key);
        seen++;
      }
      // a visitor that does not ask for _id does not get it
      assertNull(stored.document(doc, Set.of("key")).getField("_id"), why);
    }
    assertEquals(w.ids().size(), seen, why);
  }

  /** Term and terms-in-set queries on {@code _id}, as the Elasticsearch API builds them. */
  private static void idQueries(DirectoryReader reader, Written w, String why) throws IOException {
    IndexSearcher searcher = new IndexSearcher(reader);
    searcher.setQueryCache(null);
    List<String> live = new ArrayList<>();
    for (var e : new TreeMap<>(w.ids()).entrySet()) {
      String key = e.getKey();
      Set<String> expected = w.deleted().contains(key) ? Set.of() : Set.of(key);
      assertEquals(expected, keys(searcher, idQuery(e.getValue())), why + ": " + key);
      assertEquals(expected, keys(searcher, EngineDocuments.idQuery(e.getValue())), why + ": " + key);
      if (expected.size() == 1) {
        live.add(key);
      }
    }
    // more than 16 ids: TermInSetQuery walks the terms itself and keeps term states
    List<BytesRef> terms = new ArrayList<>();
    Set<String> expected = new HashSet<>();
    for (int i = 0; i < live.size(); i += 2) {
      terms.add(DocumentId.encode(w.ids().get(live.get(i))));
      expected.add(live.get(i));
    }
    for (String key : w.deleted()) {
      terms.add(DocumentId.encode(w.ids().get(key)));
    }
    assertTrue(terms.size() > 16, why);
    assertEquals(expected, keys(searcher, new TermInSetQuery("_id", terms)), why);
    // and few: a boolean query of term queries
    List<BytesRef> few = terms.subList(0, 3);
    assertEquals(3, searcher.count(new TermInSetQuery("_id", few)), why);

    // ids that are not there
    String some = w.ids().get(live.get(0));
    byte[] b = Base64.getUrlDecoder().decode(some);
    for (int at : new int[] {0, b.length / 2 - 6, b.length - 12, b.length - 9, b.length - 1}) {
      byte[] changed = b.clone();
      changed[Math.max(at, 0)] ^= 0x10;
      String id = Base64.getUrlEncoder().withoutPadding().encodeToString(changed);
      assertEquals(0, searcher.count(idQuery(id)), why + ": changed byte " + at + " of " + some);
    }
    byte[] shortened = Arrays.copyOf(b, b.length - 1);
    assertEquals(0, searcher.count(idQuery(Base64.getUrlEncoder().withoutPadding().encodeToString(shortened))), why);
    for (String id : List.of("not an id!", "1234567890123456789", "0", "AAAA", "_-_-", some + "A", "Aa",
        some.substring(1))) {
      assertEquals(0, searcher.count(idQuery(id)), why + ": " + id);
    }
    List<BytesRef> none = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      none.add(DocumentId.encode("missing-" + i));
    }
    assertEquals(0, searcher.count(new TermInSetQuery("_id", none)), why);
  }

  /**
   * The leaf's {@code _id} terms: in byte order, one per document, each with its document's postings; seekCeil and
   * seekExact land where the sorted list of expected ids says; statistics count the documents with an id.
   */
  private static void termsInOrder(LeafReader leaf, Written w, String why) throws IOException {
    TreeMap<BytesRef, String> expected = new TreeMap<>();
    StoredFields stored = leaf.storedFields();
    Map<String, Integer> docOf = new HashMap<>();
    for (int doc = 0; doc < leaf.maxDoc(); doc++) {
      String key = stored.document(doc, Set.of("key")).get("key");
      docOf.put(key, doc);
      if (!w.tombstones().contains(key)) {
        expected.put(DocumentId.encode(w.ids().get(key)), key);
      }
    }
    Terms terms = leaf.terms("_id");
    assertNotNull(terms, why);
    assertEquals(expected.size(), terms.getDocCount(), why);
    assertEquals(expected.size(), terms.getSumDocFreq(), why);
    assertEquals(expected.size(), terms.getSumTotalTermFreq(), why);
    assertEquals(expected.firstKey(), terms.getMin(), why);
    assertEquals(expected.lastKey(), terms.getMax(), why);

    TermsEnum te = terms.iterator();
    Bits liveDocs = leaf.getLiveDocs();
    for (var e : expected.entrySet()) {
      assertEquals(e.getKey(), te.next(), why + ": " + e.getValue());
      assertEquals(1, te.docFreq(), why);
      PostingsEnum p = te.postings(null, PostingsEnum.NONE);
      int doc = docOf.get(e.getValue());
      assertEquals(doc, p.nextDoc(), why);
      assertEquals(DocIdSetIterator.NO_MORE_DOCS, p.nextDoc(), why);
      assertEquals(w.deleted().contains(e.getValue()), liveDocs != null && !liveDocs.get(doc), why);
      boolean escaped = (e.getKey().bytes[e.getKey().offset] & 0xff) == 0xfd;
      assertEquals(escaped, (Base64.getUrlDecoder().decode(w.ids().get(e.getValue()))[0] & 0xff) >= 0xfd, why);
    }
    assertNull(te.next(), why);

    List<BytesRef> sorted = new ArrayList<>(expected.keySet());
    for (int i = 0; i < sorted.size(); i++) {
      BytesRef term = sorted.get(i);
      TermsEnum seek = terms.iterator();
      assertEquals(TermsEnum.SeekStatus.FOUND, seek.seekCeil(term), why);
      assertEquals(term, seek.term(), why);
      assertEquals(i + 1 < sorted.size() ? sorted.get(i + 1) : null, seek.next(), why);
      // just before the term: lands on it; just after: on the next one
      BytesRef before = BytesRef.deepCopyOf(term);
      before.length--;
      assertEquals(TermsEnum.SeekStatus.NOT_FOUND, seek.seekCeil(before), why);
      assertEquals(term, seek.term(), why);
      byte[] after = Arrays.copyOf(term.bytes, term.length + 1);
      TermsEnum.SeekStatus status = seek.seekCeil(new BytesRef(after));
      if (i + 1 < sorted.size()) {
        assertEquals(TermsEnum.SeekStatus.NOT_FOUND, status, why);
        assertEquals(sorted.get(i + 1), seek.term(), why);
      } else {
        assertEquals(TermsEnum.SeekStatus.END, status, why);
      }
      assertTrue(seek.seekExact(term), why);
      assertEquals(term, seek.term(), why);
      assertEquals(i + 1 < sorted.size() ? sorted.get(i + 1) : null, seek.next(), why);
      assertFalse(seek.seekExact(before), why);
    }
    TermsEnum seek = terms.iterator();
    assertEquals(TermsEnum.SeekStatus.NOT_FOUND, seek.seekCeil(new BytesRef()), why);
    assertEquals(sorted.get(0), seek.term(), why);
    assertEquals(TermsEnum.SeekStatus.END, seek.seekCeil(new BytesRef(new byte[] {(byte) 0xfe})), why);
    assertThrows(UnsupportedOperationException.class, seek::ord, why);
  }

  /**
   * A lookup reads O(log n) blocks: seekExact and seekCeil on a segment of 30,000 documents take a few doc-values
   * iterators per halving of the documents (each reads a block or two), never a walk over the segment; opening the
   * reader and the terms takes none.
   */
  @Test
  void aLookupTakesLogarithmicallyManyIterators() throws IOException {
    Random random = new Random();
    long seed = random.nextLong();
    random.setSeed(seed);
    try (Directory dir = new ByteBuffersDirectory()) {
      List<String> ids = new ArrayList<>();
      IndexWriterConfig config = new IndexWriterConfig()
          .setCodec(SyntheticIdTestSegment.writingCodec("ES93TSDBDefaultCompressionLucene103Codec", false))
          .setIndexSort(SyntheticIdTestSegment.INDEX_SORT).setRAMBufferSizeMB(256);
      try (IndexWriter w = new IndexWriter(dir, config)) {
        for (int s = 0; s < 300; s++) {
          byte[] tsid = new byte[20];
          random.nextBytes(tsid);
          tsid[0] = (byte) s;
          int hash = random.nextInt();
          for (int i = 0; i < 100; i++) {
            long ts = 1_700_000_000_000L + i * 1000L;
            ids.add(SyntheticIdTestSegment.expectedId(tsid, ts, hash));
            w.addDocument(SyntheticIdTestSegment.document(s + "-" + i, tsid, ts, hash, true));
          }
        }
        w.forceMerge(1);
      }
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        LeafReader leaf = reader.leaves().get(0).reader();
        assertEquals(ids.size(), leaf.maxDoc());
        var terms = (TSDBSyntheticIdPostingsFormat.SyntheticIdTerms) leaf.terms("_id");
        SyntheticIdSource source = terms.source();
        assertEquals(0, source.iteratorsTaken(), "opening takes none");
        int log2 = 32 - Integer.numberOfLeadingZeros(leaf.maxDoc());
        for (int k = 0; k < 200; k++) {
          BytesRef id = DocumentId.encode(ids.get(random.nextInt(ids.size())));
          TermsEnum te = terms.iterator();
          long before = source.iteratorsTaken();
          assertTrue(te.seekExact(id), "seed " + seed);
          long exact = source.iteratorsTaken() - before;
          assertTrue(exact <= 3 * (log2 + 2), exact + " iterators for one seekExact over " + leaf.maxDoc()
              + " documents, seed " + seed);
          before = source.iteratorsTaken();
          assertEquals(TermsEnum.SeekStatus.FOUND, te.seekCeil(id), "seed " + seed);
          long ceil = source.iteratorsTaken() - before;
          assertTrue(ceil <= 4 * (log2 + 2), ceil + " iterators for one seekCeil, seed " + seed);
        }
      }
    }
  }

  /**
   * Two documents with one id (a copy indexed beside its deleted original, as a node's delete and re-index leave
   * them): one term of two postings, enumerated once, of which a query keeps the live one; both fetch that id.
   */
  @Test
  void twoDocumentsWithOneIdAreOneTermOfTwoPostings() throws IOException {
    try (Directory dir = new ByteBuffersDirectory()) {
      byte[] tsid = {0x10, 0x20, 0x30, 0x40};
      IndexWriterConfig config = new IndexWriterConfig()
          .setCodec(SyntheticIdTestSegment.writingCodec("ES93TSDBDefaultCompressionLucene103Codec", false))
          .setIndexSort(SyntheticIdTestSegment.INDEX_SORT).setMergePolicy(NoMergePolicy.INSTANCE);
      try (IndexWriter w = new IndexWriter(dir, config)) {
        w.addDocument(SyntheticIdTestSegment.document("a", tsid, 3000, 42, true));
        w.addDocument(SyntheticIdTestSegment.document("b-old", tsid, 2000, 42, true));
        w.addDocument(SyntheticIdTestSegment.document("c", tsid, 1000, 42, true));
        w.addDocument(SyntheticIdTestSegment.document("b-new", tsid, 2000, 42, true));
        w.deleteDocuments(new Term("key", "b-old"));
      }
      String b = SyntheticIdTestSegment.expectedId(tsid, 2000, 42);
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        assertEquals(1, reader.leaves().size());
        LeafReader leaf = reader.leaves().get(0).reader();
        assertEquals(4, leaf.maxDoc());
        TermsEnum te = leaf.terms("_id").iterator();
        List<String> enumerated = new ArrayList<>();
        for (BytesRef t = te.next(); t != null; t = te.next()) {
          enumerated.add(DocumentId.decode(t));
          if (DocumentId.decode(t).equals(b)) {
            assertEquals(2, te.docFreq());
            PostingsEnum p = te.postings(null, PostingsEnum.NONE);
            assertEquals(1, p.nextDoc());
            assertEquals(2, p.nextDoc());
            assertEquals(DocIdSetIterator.NO_MORE_DOCS, p.nextDoc());
          }
        }
        assertEquals(List.of(SyntheticIdTestSegment.expectedId(tsid, 3000, 42), b,
            SyntheticIdTestSegment.expectedId(tsid, 1000, 42)), enumerated);
        assertTrue(te.seekExact(DocumentId.encode(b)));
        assertEquals(2, te.docFreq());
        IndexSearcher searcher = new IndexSearcher(reader);
        assertEquals(Set.of("b-new"), keys(searcher, idQuery(b)));
        assertEquals(b, EngineDocuments.id(reader.storedFields().document(1)));
        assertEquals(b, EngineDocuments.id(reader.storedFields().document(2)));
      }
    }
  }

  @Test
  void aRoutingHashThatIsNotFourBytesFailsNamingTheDocument() throws IOException {
    try (Directory dir = new ByteBuffersDirectory()) {
      IndexWriterConfig config = new IndexWriterConfig()
          .setCodec(SyntheticIdTestSegment.writingCodec("ES93TSDBDefaultCompressionLucene103Codec", false))
          .setIndexSort(SyntheticIdTestSegment.INDEX_SORT);
      try (IndexWriter w = new IndexWriter(dir, config)) {
        Document d = SyntheticIdTestSegment.document("a", new byte[] {1, 2}, 5, 7, false);
        d.removeField("_ts_routing_hash");
        d.add(new SortedDocValuesField("_ts_routing_hash", DocumentId.encode("abc")));
        w.addDocument(d);
      }
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        CorruptIndexException e = assertThrows(CorruptIndexException.class,
            () -> reader.storedFields().document(0));
        assertTrue(e.getMessage().contains("document 0 of segment")
            && e.getMessage().contains("not the indexed base64 id of four bytes"),
            e.getMessage());
      }
    }
  }

  /** A segment not sorted as a time_series one is refused at opening: a binary search there would answer wrongly. */
  @Test
  void aSegmentNotSortedBySeriesAndTimeIsRefused() throws IOException {
    for (Sort sort : new Sort[] {null, new Sort(new SortField("_tsid", SortField.Type.STRING)),
        new Sort(new SortField("_tsid", SortField.Type.STRING),
            new SortedNumericSortField("@timestamp", SortField.Type.LONG, false))}) {
      try (Directory dir = new ByteBuffersDirectory()) {
        IndexWriterConfig config = new IndexWriterConfig()
            .setCodec(SyntheticIdTestSegment.writingCodec("ES93TSDBDefaultCompressionLucene103Codec", false));
        if (sort != null) {
          config.setIndexSort(sort);
        }
        try (IndexWriter w = new IndexWriter(dir, config)) {
          w.addDocument(SyntheticIdTestSegment.document("a", new byte[] {1, 2}, 5, 7, false));
        }
        CorruptIndexException e = assertThrows(CorruptIndexException.class, () -> DirectoryReader.open(dir));
        assertTrue(e.getMessage().contains("not by _tsid then @timestamp descending"), e.getMessage());
      }
    }
  }

  @Test
  void aSegmentWithASeriesButNoTimestampFailsNamingIt() throws IOException {
    try (Directory dir = new ByteBuffersDirectory()) {
      IndexWriterConfig config = new IndexWriterConfig()
          .setCodec(SyntheticIdTestSegment.writingCodec("ES93TSDBDefaultCompressionLucene103Codec", false))
          .setIndexSort(SyntheticIdTestSegment.INDEX_SORT);
      try (IndexWriter w = new IndexWriter(dir, config)) {
        Document d = new Document();
        d.add(new SortedDocValuesField("_tsid", new BytesRef("x")));
        d.add(new StringField("_id", "x", Field.Store.NO));
        w.addDocument(d);
      }
      CorruptIndexException e = assertThrows(CorruptIndexException.class, () -> DirectoryReader.open(dir));
      assertTrue(e.getMessage().contains("no @timestamp"), e.getMessage());
    }
  }
}
