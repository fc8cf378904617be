/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.snapshot.SnapshotInfo;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.CacheStats;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * The quickstart: writes a small index of web-server log events, snapshots it into a repository on the local
 * filesystem (the embedded default), mounts the snapshot with a shared cache, and runs the same query cold and
 * warm, printing what each cost.
 *
 * <p>Usage: {@code scripts/quickstart [--events N] [--keep] [WORK_DIR]} (see {@link #USAGE}).
 */
public final class Quickstart {
  private static final String[] PATHS = {"/", "/index.html", "/login", "/api/orders", "/api/cart", "/static/app.js",
      "/static/site.css", "/favicon.ico", "/search", "/account"};
  private static final String[] COUNTRIES = {"US", "DE", "FR", "BR", "IN", "JP", "GB", "CA", "NL", "AU"};

  /** What {@code --help} prints. */
  static final String USAGE = """
      Usage: scripts/quickstart [--events N] [--keep] [WORK_DIR]

      Writes a log index of N events, snapshots it into a repository in a local directory, mounts the snapshot
      through a shared cache and runs one query cold and warm, printing what each cost.

        WORK_DIR      where the index, the repository and the cache go (created if missing, and kept);
                      default: a new temporary directory, deleted at the end unless --keep
        --events N    how many log events to write (default 200000); a second argument after WORK_DIR does the same
        --keep        keep the temporary directory
        -h, --help    print this help
      """;

  private Quickstart() {}

  /** What the command line asked for. */
  record Options(Path work, int events, boolean keep, boolean help) {}

  /**
   * Parses the command line.
   *
   * @throws IllegalArgumentException with a message for the user if it is malformed
   */
  static Options parse(String[] args) {
    Path work = null;
    Integer events = null;
    boolean keep = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "-h", "--help" -> {
          return new Options(null, 0, false, true);
        }
        case "--keep" -> keep = true;
        case "--events" -> {
          if (i + 1 == args.length) {
            throw new IllegalArgumentException("--events needs a number");
          }
          events = events(args[++i]);
        }
        default -> {
          if (a.startsWith("--events=")) {
            events = events(a.substring("--events=".length()));
          } else if (a.startsWith("-")) {
            throw new IllegalArgumentException("unknown option '" + a + "'");
          } else if (work == null) {
            work = Path.of(a);
          } else if (events == null) {
            events = events(a);
          } else {
            throw new IllegalArgumentException("unexpected argument '" + a + "'");
          }
        }
      }
    }
    return new Options(work, events == null ? 200_000 : events, keep, false);
  }

  private static int events(String text) {
    try {
      int n = Integer.parseInt(text.trim().replace("_", ""));
      if (n < 1) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("the number of events must be a whole number of at least 1, got '" + text + "'");
    }
  }

  public static void main(String[] args) throws IOException {
    Options options;
    try {
      options = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("quickstart: " + e.getMessage() + "\n\n" + USAGE);
      System.exit(2);
      return;
    }
    if (options.help()) {
      System.out.print(USAGE);
      return;
    }
    boolean temporary = options.work() == null;
    Path work = temporary ? Files.createTempDirectory("permafrost-quickstart") : options.work();
    try {
      run(work, options.events(), System.out);
    } finally {
      if (temporary && !options.keep()) {
        deleteRecursively(work);
        System.out.println("deleted the temporary directory " + work + " (--keep keeps it)");
      } else {
        System.out.println("kept " + work + ": index/ (the Lucene index), repository/ (the snapshot), cache/ (the cache file)");
      }
    }
  }

  private static void deleteRecursively(Path root) throws IOException {
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Runs the quickstart in {@code work}; returns the hits of the query (the same cold and warm). */
  public static long run(Path work, int events, PrintStream out) throws IOException {
    out.println("Permafrost quickstart in " + work);
    Path indexPath = work.resolve("index");
    try (Directory index = FSDirectory.open(indexPath)) {
      long start = System.nanoTime();
      writeLogs(index, events);
      out.printf("1. wrote %,d log events to a local Lucene index (%s) in %d ms%n", events, indexPath, millis(start));

      // The repository: a prefix in a blob store. file:// is the embedded default; s3://, gs:// and azblob://
      // work the same once their module is on the class path.
      try (BlobStore store = BlobStores.open(work.resolve("repository").toUri())) {
        SnapshotRepository repo = SnapshotRepository.open(store);
        String name = "logs-" + System.currentTimeMillis();
        start = System.nanoTime();
        SnapshotInfo info = repo.createSnapshot(name, index, SnapshotOptions.DEFAULTS.withPointFields("@timestamp"));
        out.printf("2. snapshot '%s': %d files, %,d bytes, %,d docs, into %s in %d ms%n", name, info.fileCount(),
            info.totalBytes(), info.numDocs(), store.describe(), millis(start));

        try (SharedRegionCache cache = SharedRegionCache.builder().path(work.resolve("cache")).size("64mb").build();
            BlobDirectory dir = BlobDirectory.open(repo, name, cache)) {
          start = System.nanoTime();
          try (DirectoryReader reader = DirectoryReader.open(dir)) {
            out.printf("3. mounted (one blob read: the manifest) and opened a reader in %d ms; blob requests by the"
                + " reader open: %d%n", millis(start), cache.stats().total().storeRequests());
            IndexSearcher searcher = new IndexSearcher(reader);
            Query query = new BooleanQuery.Builder()
                .add(new TermQuery(new Term("status", "404")), BooleanClause.Occur.FILTER)
                .add(new TermQuery(new Term("country", "DE")), BooleanClause.Occur.FILTER)
                .build();
            Sort newestFirst = new Sort(new SortField("@timestamp", SortField.Type.LONG, true));
            long hits = 0;
            for (String pass : new String[] {"cold", "warm"}) {
              CacheStats.Counts before = dir.stats();
              start = System.nanoTime();
              TopDocs top = searcher.search(query, 10, newestFirst);
              String firstPath = top.scoreDocs.length == 0 ? "-" : searcher.storedFields().document(top.scoreDocs[0].doc).get("path");
              long micros = (System.nanoTime() - start) / 1000;
              CacheStats.Counts after = dir.stats();
              out.printf("4. %s query (status:404 AND country:DE, newest first): %d hits, newest %s, %,d us;"
                      + " blob requests %d, bytes fetched %,d, cache hits %d%n",
                  pass, top.totalHits.value(), firstPath, micros, after.storeRequests() - before.storeRequests(),
                  after.bytesFetched() - before.bytesFetched(), after.hits() - before.hits());
              hits = top.totalHits.value();
            }
            CacheStats stats = cache.stats();
            out.printf("5. cache: %,d bytes in %d regions (%d in use), %d fetches, %,d bytes fetched, %,d bytes read from"
                    + " the cache, hit ratio %.2f%n",
                stats.sizeInBytes(), stats.regions(), stats.regionsInUse(), stats.total().fetches(),
                stats.total().bytesFetched(), stats.total().bytesReadFromCache(), stats.total().hitRatio());
            stats.perExtension().forEach((ext, c) -> out.printf("   .%-8s fetches %3d, bytes fetched %,10d, hits %4d%n",
                ext, c.fetches(), c.bytesFetched(), c.hits()));
            return hits;
          }
        }
      }
    }
  }

  private static long millis(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  private static void writeLogs(Directory dir, int events) throws IOException {
    Random random = new Random(42);
    long t0 = 1_707_955_200_000L; // 2024-02-15T00:00:00Z
    try (IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig().setOpenMode(IndexWriterConfig.OpenMode.CREATE).setUseCompoundFile(false))) {
      for (int i = 0; i < events; i++) {
        Document doc = new Document();
        long timestamp = t0 + (long) i * 86_400_000L / events;
        doc.add(new LongPoint("@timestamp", timestamp));
        doc.add(new NumericDocValuesField("@timestamp", timestamp));
        int roll = random.nextInt(100);
        String status = roll < 4 ? "404" : roll < 5 ? "500" : roll < 12 ? "304" : "200";
        doc.add(new StringField("status", status, Field.Store.YES));
        doc.add(new StringField("country", COUNTRIES[Math.min(COUNTRIES.length - 1, (int) Math.abs(random.nextGaussian() * 3))], Field.Store.YES));
        doc.add(new StringField("path", PATHS[random.nextInt(PATHS.length)], Field.Store.YES));
        doc.add(new StringField("client_ip", "10." + random.nextInt(4) + "." + random.nextInt(256) + "." + random.nextInt(256), Field.Store.YES));
        doc.add(new TextField("user_agent", random.nextBoolean() ? "Mozilla/5.0 (X11; Linux x86_64) Firefox/122.0"
            : "Mozilla/5.0 (Macintosh) Safari/605.1.15", Field.Store.YES));
        doc.add(new StoredField("bytes", random.nextInt(50_000)));
        writer.addDocument(doc);
      }
      writer.forceMerge(1);
    }
  }
}
