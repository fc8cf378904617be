/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.elasticsearch.codecs.ES95TSDBDocValuesFormat;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.fixture.TsdbFixture;
import dev.permafrost.blob.FileSystemBlobStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.codecs.DocValuesProducer;
import org.apache.lucene.codecs.lucene90.Lucene90CompoundFormat;
import org.apache.lucene.codecs.lucene94.Lucene94FieldInfosFormat;
import org.apache.lucene.codecs.lucene99.Lucene99SegmentInfoFormat;
import org.apache.lucene.index.DocValuesSkipper;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.codecs.perfield.PerFieldDocValuesFormat;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.NumericUtils;
import org.apache.lucene.util.StringHelper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ES95TSDB} files a real Elasticsearch 9.5.3 node wrote ({@link EngineFixture#ELASTICSEARCH_95}'s
 * {@code metrics-ts}, 8 series of 500 points, time_series, snapshot {@code snap-2}) opened by
 * {@link ES95TSDBDocValuesFormat} alone, without the segment's codec ({@code ES93TSDBDefaultCompressionLucene103Codec},
 * read elsewhere): the segment's {@code .si} and {@code .fnm} read by Lucene's formats, the doc-values files by their
 * per-field suffix; then every document's {@code @timestamp} (split delta), {@code cpu} (ALP doubles, bit for bit),
 * {@code memory} (gauge), {@code requests} (counter, split delta), {@code _seq_no} and dimensions against the
 * generator ({@link TsdbFixture#metricsDocument}), and the skippers' bounds.
 */
class Es95SegmentFilesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path tmp;
  static Path shard;

  @BeforeAll
  static void restore() throws Exception {
    Path repo = EngineFixture.ELASTICSEARCH_95.ensure().resolve("repo");
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(repo, false));
    String name = EngineSnapshotRepository.shard("snap-2", "metrics-ts", 0);
    // the shard's files as its snapshot blob lists them (its commit names a codec not read here, so not parsed)
    JsonNode files = MetadataBlob.read(repository.readManifestBytes(name), EngineSnapshotRepository.SNAPSHOT_CODEC,
        name).path("files");
    shard = Files.createDirectories(tmp.resolve("metrics-ts"));
    for (JsonNode f : files) {
      String blob = f.path("name").asText();
      byte[] bytes;
      if (blob.startsWith(EngineSnapshotRepository.VIRTUAL_PREFIX)) {
        bytes = f.path("meta_hash").binaryValue();
      } else {
        try (var found = Files.find(repo.resolve("indices"), 3, (p, a) -> p.getFileName().toString().equals(blob))) {
          bytes = Files.readAllBytes(found.findFirst().orElseThrow());
        }
      }
      assertEquals(f.path("length").asLong(), bytes.length, f.toString());
      Files.write(shard.resolve(f.path("physical_name").asText()), bytes);
    }
  }

  @Test
  void everyDocValueOfTheNodesSegmentsIsTheGenerators() throws Exception {
    int docs = 0;
    try (Directory dir = FSDirectory.open(shard)) {
      for (String file : dir.listAll()) {
        if (file.endsWith(".si")) {
          docs += checkSegment(dir, file.substring(0, file.length() - 3));
        }
      }
    }
    assertEquals(TsdbFixture.SERIES * TsdbFixture.POINTS, docs, "every point, once");
  }

  /** Checks one segment's every document; returns its count. */
  private static int checkSegment(Directory dir, String segment) throws Exception {
    SegmentInfo si = new Lucene99SegmentInfoFormat().read(dir, segment, segmentId(dir, segment), IOContext.DEFAULT);
    Directory files = si.getUseCompoundFile() ? new Lucene90CompoundFormat().getCompoundReader(dir, si) : dir;
    try {
      FieldInfos infos = new Lucene94FieldInfosFormat().read(files, si, "", IOContext.DEFAULT);
      String suffix = null;
      List<String> es95 = new ArrayList<>();
      for (FieldInfo fi : infos) {
        if ("ES95TSDB".equals(fi.getAttribute(PerFieldDocValuesFormat.PER_FIELD_FORMAT_KEY))) {
          suffix = "ES95TSDB_" + fi.getAttribute(PerFieldDocValuesFormat.PER_FIELD_SUFFIX_KEY);
          es95.add(fi.name);
        }
      }
      assertNotNull(suffix, segment + " has ES95TSDB fields");
      assertTrue(es95.containsAll(List.of("@timestamp", "cpu", "memory", "requests", "_seq_no", "host", "pod",
          "_tsid")), es95.toString());
      assertTrue(Arrays.asList(files.listAll()).contains(segment + "_" + suffix + ".dvs"), "version 8's .dvs");
      SegmentReadState state = new SegmentReadState(files, si, infos, IOContext.DEFAULT, suffix);
      try (DocValuesProducer p = new ES95TSDBDocValuesFormat().fieldsProducer(state)) {
        p.checkIntegrity();
        return checkDocuments(p, infos, si.maxDoc(), segment);
      }
    } finally {
      if (files != dir) {
        files.close();
      }
    }
  }

  private static int checkDocuments(DocValuesProducer p, FieldInfos infos, int maxDoc, String segment)
      throws Exception {
    SortedSetDocValues host = p.getSortedSet(infos.fieldInfo("host"));
    SortedSetDocValues pod = p.getSortedSet(infos.fieldInfo("pod"));
    SortedNumericDocValues timestamp = p.getSortedNumeric(infos.fieldInfo("@timestamp"));
    SortedNumericDocValues cpu = p.getSortedNumeric(infos.fieldInfo("cpu"));
    SortedNumericDocValues memory = p.getSortedNumeric(infos.fieldInfo("memory"));
    SortedNumericDocValues requests = p.getSortedNumeric(infos.fieldInfo("requests"));
    NumericDocValues seqNo = p.getNumeric(infos.fieldInfo("_seq_no"));
    BitSet seen = new BitSet();
    long minTimestamp = Long.MAX_VALUE;
    long maxTimestamp = Long.MIN_VALUE;
    for (int doc = 0; doc < maxDoc; doc++) {
      String what = segment + " doc " + doc;
      assertTrue(host.advanceExact(doc) && pod.advanceExact(doc) && timestamp.advanceExact(doc)
          && cpu.advanceExact(doc) && memory.advanceExact(doc) && requests.advanceExact(doc)
          && seqNo.advanceExact(doc), what);
      int series = List.of(TsdbFixture.METRIC_HOSTS).indexOf(host.lookupOrd(host.nextOrd()).utf8ToString())
          * TsdbFixture.PODS.length + List.of(TsdbFixture.PODS).indexOf(pod.lookupOrd(pod.nextOrd()).utf8ToString());
      assertEquals(1, timestamp.docValueCount(), what);
      long ts = timestamp.nextValue();
      minTimestamp = Math.min(minTimestamp, ts);
      maxTimestamp = Math.max(maxTimestamp, ts);
      int point = (int) ((ts - TsdbFixture.metricsTimestamp(0)) / 60_000);
      assertEquals(TsdbFixture.metricsTimestamp(point), ts, what);
      assertTrue(series >= 0 && point >= 0 && point < TsdbFixture.POINTS, what + ": series " + series + " point "
          + point);
      assertFalse(seen.get(series * TsdbFixture.POINTS + point), what + " repeats series " + series + " point "
          + point);
      seen.set(series * TsdbFixture.POINTS + point);
      JsonNode expected = JSON.readTree(TsdbFixture.metricsDocument(series, point));
      what += " (series " + series + ", point " + point + ")";
      double c = NumericUtils.sortableLongToDouble(cpu.nextValue());
      assertEquals(Double.doubleToRawLongBits(expected.get("cpu").asDouble()), Double.doubleToRawLongBits(c),
          what + ": cpu " + c + ", the generator's " + expected.get("cpu").asDouble());
      assertEquals(expected.get("memory").asLong(), memory.nextValue(), what + ": memory");
      assertEquals(expected.get("requests").asLong(), requests.nextValue(), what + ": requests");
      // one bulk, point by point and series by series: the node numbered them in that order
      assertEquals(point * (long) TsdbFixture.SERIES + series, seqNo.longValue(), what + ": _seq_no");
    }
    DocValuesSkipper skipper = p.getSkipper(infos.fieldInfo("@timestamp"));
    assertNotNull(skipper, "@timestamp has a skipper");
    assertEquals(minTimestamp, skipper.minValue());
    assertEquals(maxTimestamp, skipper.maxValue());
    assertEquals(maxDoc, skipper.docCount());
    return maxDoc;
  }

  /** The segment's id, from its {@code .si}'s own header (the commit that also records it names a codec not read). */
  private static byte[] segmentId(Directory dir, String segment) throws Exception {
    try (IndexInput in = dir.openInput(segment + ".si", IOContext.READONCE)) {
      assertEquals(CodecUtil.CODEC_MAGIC, CodecUtil.readBEInt(in));
      in.readString();
      CodecUtil.readBEInt(in);
      byte[] id = new byte[StringHelper.ID_LENGTH];
      in.readBytes(id, 0, id.length);
      return id;
    }
  }
}
