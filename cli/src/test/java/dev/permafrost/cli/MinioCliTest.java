/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.UUID;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.TermQuery;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyExistsException;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;

/**
 * The command line against S3, on the MinIO that {@code scripts/test-servers.sh} starts (its endpoint and keys from
 * {@code PERMAFROST_S3_ENDPOINT}, {@code PERMAFROST_S3_ACCESS_KEY}, {@code PERMAFROST_S3_SECRET_KEY}; without them the
 * test fails, saying how to start the servers). Each test takes a fresh prefix of the bucket {@value #BUCKET}.
 */
class MinioCliTest {
  static final String BUCKET = "permafrost-tests";
  @TempDir static Path tmp;
  static Path day1;
  static Path day2;

  @BeforeAll
  static void indicesAndBucket() throws IOException {
    day1 = tmp.resolve("day1");
    day2 = tmp.resolve("day2");
    LogIndexes.write(day1, 0, 3000, 11);
    LogIndexes.write(day2, 1, 2000, 12);
    ensureBucket();
  }

  /** A repository URI on a fresh prefix, with the endpoint and credentials in its query as a user would give them. */
  static String freshRepository(String secretKey) {
    return "s3://" + BUCKET + "/cli-" + UUID.randomUUID() + "?endpoint=" + enc(env("PERMAFROST_S3_ENDPOINT"))
        + "&access_key=" + enc(env("PERMAFROST_S3_ACCESS_KEY")) + "&secret_key=" + enc(secretKey);
  }

  static String freshRepository() {
    return freshRepository(env("PERMAFROST_S3_SECRET_KEY"));
  }

  @Test
  void snapshotSearchVerifyDamageAndDelete() throws IOException {
    String repo = freshRepository();
    String shown = repo.substring(0, repo.indexOf('?'));
    assertOk(Cli.run("snapshot", "-p", "@timestamp", day1.toString(), repo, "logs-2024.02.15"));
    Cli.Run taken = assertOk(Cli.run("snapshot", "-p", "@timestamp", day2.toString(), repo, "logs-2024.02.16"));
    assertTrue(taken.out().startsWith("snapshot 'logs-2024.02.16' taken in " + shown + ": "), taken.toString());
    assertTrue(taken.err().contains("logs-2024.02.16: 100%"), taken.toString());
    assertEquals("logs-2024.02.15\nlogs-2024.02.16\n", assertOk(Cli.run("list", repo)).out().replace("\r\n", "\n"));

    Cli.Run info = assertOk(Cli.run("info", repo, "logs-2024.02.16"));
    assertTrue(info.out().contains("repository:   " + shown + "\n"), info.toString());
    assertTrue(info.out().contains("2,000 live"), info.toString());

    TermQuery warning = new TermQuery(new Term("message", "warning"));
    int expected = LogIndexes.count(day1, warning) + LogIndexes.count(day2, warning);
    Cli.Run search = assertOk(Cli.run("search", "--exact-total", "-f", "@timestamp", repo, "logs-*", "warning"));
    assertTrue(search.out().contains("total: " + String.format(Locale.ROOT, "%,d", expected) + " hits in 2 indices"),
        search.toString());
    assertTrue(search.out().lines().filter(l -> l.startsWith("logs-")).allMatch(l -> l.contains("@timestamp=17")),
        search.toString());

    Cli.Run clean = assertOk(Cli.run("verify", repo));
    assertTrue(clean.out().contains(": ok (write, read, range read, list, delete)"), clean.toString());
    assertTrue(clean.out().contains("no damage found"), clean.toString());

    FileEntry damaged;
    try (BlobStore store = BlobStores.open(URI.create(repo))) {
      SnapshotManifest manifest = SnapshotRepository.open(store).readManifest("logs-2024.02.15");
      damaged = manifest.files().stream().filter(f -> f.chunkTable() != null)
          .max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
      byte[] bytes;
      try (InputStream in = store.read(damaged.blobName())) {
        bytes = in.readAllBytes();
      }
      bytes[bytes.length / 3] ^= 0x01;
      store.write(damaged.blobName(), new ByteArrayInputStream(bytes), bytes.length);
    }
    Cli.Run verify = Cli.run("verify", "--no-store-check", repo);
    assertEquals(1, verify.code(), verify.toString());
    assertTrue(verify.out().contains("snapshot 'logs-2024.02.15' file " + damaged.name() + ": blob " + damaged.blobName()
        + ": chunk "), verify.toString());
    assertTrue(verify.out().contains("snapshot 'logs-2024.02.16': ok"), verify.toString());
    assertTrue(verify.err().contains("1 snapshot of " + shown + " damaged"), verify.toString());
    assertNoSecret(verify);

    assertOk(Cli.run("delete", repo, "logs-2024.02.15"));
    assertEquals("logs-2024.02.16\n", assertOk(Cli.run("list", repo)).out().replace("\r\n", "\n"));
    assertOk(Cli.run("verify", repo));
  }

  @Test
  void wrongCredentialsFailWithOneNamingTheStoreAndNotTheSecret() {
    String repo = freshRepository("not-the-secret-SEKRIT");
    Cli.Run run = Cli.run("list", repo);
    assertEquals(1, run.code(), run.toString());
    assertTrue(run.err().startsWith("permafrost list: "), run.toString());
    assertTrue(run.err().contains("s3://" + BUCKET + "/cli-"), "names the store: " + run);
    assertFalse(run.err().contains("SEKRIT"), run.toString());
    assertNoSecret(run);
  }

  @Test
  void aBadSettingIsAUsageError() {
    Cli.Run run = Cli.run("list", freshRepository() + "&part_size=tiny");
    assertEquals(2, run.code(), run.toString());
    assertTrue(run.err().contains("part_size"), run.toString());
    assertNoSecret(run);
  }

  private static Cli.Run assertOk(Cli.Run run) {
    assertEquals(0, run.code(), run.toString());
    assertNoSecret(run);
    return run;
  }

  private static void assertNoSecret(Cli.Run run) {
    String secret = env("PERMAFROST_S3_SECRET_KEY");
    assertFalse(run.out().contains(secret) || run.err().contains(secret), "the secret key is printed: " + run);
    assertFalse(run.out().contains(enc(secret)) || run.err().contains(enc(secret)), "the secret key is printed: " + run);
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  static String env(String name) {
    String value = System.getenv(name);
    if (value == null || value.isBlank()) {
      fail(name + " is not set: the S3 tests need the local MinIO. Start the servers with"
          + " scripts/test-servers.sh start and eval \"$(scripts/test-servers.sh env)\", or run scripts/test");
    }
    return value;
  }

  /** Creates the shared test bucket if an earlier test has not. */
  static synchronized void ensureBucket() {
    try (S3Client admin = S3Client.builder()
        .endpointOverride(URI.create(env("PERMAFROST_S3_ENDPOINT")))
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(env("PERMAFROST_S3_ACCESS_KEY"), env("PERMAFROST_S3_SECRET_KEY"))))
        .build()) {
      admin.createBucket(b -> b.bucket(BUCKET));
    } catch (BucketAlreadyOwnedByYouException | BucketAlreadyExistsException e) {
      // created by an earlier run against the same server
    }
  }
}
