/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.BlobStoreVerifier.VerificationException;
import dev.permafrost.blob.BlobStoreVerifier;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.blob.StorePolicy;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import software.amazon.awssdk.core.sync.RequestBody;

/** S3-specific behaviour on the local MinIO: URIs and settings, errors, multipart uploads, batch deletes. */
class S3BlobStoreTest {
  private final Random random = new Random();

  private byte[] randomBytes(int n) {
    byte[] data = new byte[n];
    random.nextBytes(data);
    return data;
  }

  private static void put(BlobStore store, String name, byte[] data) throws IOException {
    store.write(name, new ByteArrayInputStream(data), data.length);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String stackTrace(Throwable t) {
    StringWriter sw = new StringWriter();
    t.printStackTrace(new PrintWriter(sw));
    return sw.toString();
  }

  /** Asserts the error names the backend, the bucket and the endpoint, and holds no trace of the secret. */
  private static void assertNamesStoreWithoutSecret(Throwable e, String bucket, String endpoint, String secret) {
    String message = e.getMessage();
    assertTrue(message.contains("s3://"), message);
    assertTrue(message.contains(bucket), message);
    assertTrue(message.contains(endpoint), message);
    assertFalse(stackTrace(e).contains(secret), "the secret key leaks into the error: " + stackTrace(e));
  }

  // ------------------------------------------------------------------------------------- URIs and settings

  @Test
  void openByUriParsesBucketPrefixAndSettings() throws IOException {
    String uri = "s3://my-bucket/some/prefix/?endpoint=" + enc("http://127.0.0.1:1") + "&region=eu-west-3"
        + "&access_key=AKIDEXAMPLE&secret_key=" + enc("uri-secret/key+x") + "&part_size=6mb&single_upload_threshold=20mb"
        + "&list_page_size=17&max_retries=1&connect_timeout=2s&read_timeout=PT3S&path_style_access=true"
        + "&max_connections=4";
    try (BlobStore store = BlobStores.open(URI.create(uri))) {
      // BlobStores.open wraps the backend in the store policy, which took max_retries.
      assertEquals(1, StorePolicy.of(store).maxRetries());
      S3BlobStore s3 = assertInstanceOf(S3BlobStore.class, FilterBlobStore.unwrap(store));
      assertEquals("my-bucket", s3.bucket());
      assertEquals("some/prefix/", s3.prefix());
      assertEquals("http://127.0.0.1:1", s3.endpoint());
      assertEquals("eu-west-3", s3.region());
      assertEquals(6L << 20, s3.partSize());
      assertEquals(20L << 20, s3.singleUploadThreshold());
      assertEquals(17, s3.listPageSize());
      assertEquals("s3://my-bucket/some/prefix/ (endpoint http://127.0.0.1:1, region eu-west-3)", s3.describe());
      assertFalse(s3.toString().contains("uri-secret"), s3.toString());
      assertFalse(s3.toString().contains("AKIDEXAMPLE"), s3.toString());
    }
    try (BlobStore opened = BlobStores.open(URI.create("s3://bucket_2?endpoint=http://localhost:9"))) {
      S3BlobStore whole = (S3BlobStore) FilterBlobStore.unwrap(opened);
      assertEquals("bucket_2", whole.bucket());
      assertEquals("", whole.prefix());
      assertEquals("us-east-1", whole.region());
    }
  }

  @Test
  void unknownOrMalformedSettingsAreRejectedByName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BlobStores.open(URI.create("s3://b/p?endpoint=http://127.0.0.1:1&regoin=eu-west-1")));
    assertTrue(e.getMessage().contains("regoin"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> S3BlobStore.builder().bucket("b").endpoint("http://127.0.0.1:1").setting("partsize", "8mb").build());
    assertTrue(e.getMessage().contains("partsize"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> BlobStores.open(URI.create("s3://b/p?endpoint=http://127.0.0.1:1&max_retries=lots")));
    assertTrue(e.getMessage().contains("max_retries"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> S3BlobStore.builder().bucket("b").endpoint("http://127.0.0.1:1").setting("max_retries", "1").build());
    assertTrue(e.getMessage().contains("max_retries"), "retries are the store policy's, not a backend setting: " + e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> BlobStores.open(URI.create("s3://b/p?endpoint=http://127.0.0.1:1&part_size=1mb")));
    assertTrue(e.getMessage().contains("part_size"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> BlobStores.open(URI.create("s3://b/p?endpoint=http://127.0.0.1:1&list_page_size=5000")));
    assertTrue(e.getMessage().contains("list_page_size"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> BlobStores.open(URI.create("s3://b/p?endpoint=http://127.0.0.1:1&secret_key=only-the-secret")));
    assertTrue(e.getMessage().contains("access_key"), e.getMessage());
    assertFalse(e.getMessage().contains("only-the-secret"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> BlobStores.open(URI.create("s3://b/p?endpoint=127.0.0.1:9000")));
    assertTrue(e.getMessage().contains("endpoint"), e.getMessage());
  }

  @Test
  void malformedUrisAreRejected() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BlobStores.open(URI.create("s3:///just/a/prefix")));
    assertTrue(e.getMessage().contains("no bucket"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> BlobStores.open(URI.create("s3://AKID:uri-secret@bucket/p?endpoint=http://127.0.0.1:1")));
    assertFalse(e.getMessage().contains("uri-secret"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> BlobStores.open(URI.create("s3://bucket/a/../b?endpoint=http://127.0.0.1:1")));
  }

  @Test
  void uriAndBuilderOpenTheSameStore() throws IOException {
    String prefix = "by-uri-" + UUID.randomUUID();
    S3TestStores.newStore().close(); // makes sure the test bucket exists
    URI uri = URI.create("s3://" + S3TestStores.BUCKET + "/" + prefix + "?endpoint=" + enc(S3TestStores.endpoint())
        + "&access_key=" + enc(S3TestStores.accessKey()) + "&secret_key=" + enc(S3TestStores.secretKey()));
    byte[] data = randomBytes(1234);
    try (BlobStore byUri = BlobStores.open(uri)) {
      put(byUri, "x/y", data);
      assertFalse(byUri.toString().contains(S3TestStores.secretKey()));
    }
    try (BlobStore built = S3TestStores.baseBuilder().bucket(S3TestStores.BUCKET).prefix(prefix).build()) {
      try (InputStream in = built.read("x/y")) {
        assertArrayEquals(data, in.readAllBytes());
      }
      assertEquals(List.of(new BlobMetadata("x/y", 1234)), built.list(""));
    }
  }

  // -------------------------------------------------------------------------------------------- errors

  @Test
  void missingBucketSaysSo() throws IOException {
    String bucket = "permafrost-missing-" + UUID.randomUUID();
    try (S3BlobStore store = S3TestStores.baseBuilder().bucket(bucket).prefix("p").build()) {
      List<Executable> operations = List.of(
          () -> put(store, "a", new byte[10]),
          () -> put(store, "big", new byte[(int) S3TestStores.PART_SIZE + 1]),
          () -> store.read("a").close(),
          () -> store.read("a", 0, 5).close(),
          () -> store.length("a"),
          () -> store.exists("a"),
          () -> store.list(""),
          () -> store.deleteAll(List.of("a", "b")));
      for (Executable operation : operations) {
        BlobStoreException e = assertThrows(BlobStoreException.class, operation);
        assertFalse(e instanceof BlobNotFoundException, e.getMessage());
        assertTrue(e.getMessage().contains("bucket '" + bucket + "' does not exist"), e.getMessage());
        assertFalse(e.isRetryable(), e.getMessage());
        assertNamesStoreWithoutSecret(e, bucket, S3TestStores.endpoint(), S3TestStores.secretKey());
      }
    }
  }

  @Test
  void wrongSecretKeySaysSoWithoutLeakingIt() throws IOException {
    String secret = "wrong-secret-" + UUID.randomUUID();
    S3TestStores.newStore().close();
    try (S3BlobStore store = S3TestStores.baseBuilder().bucket(S3TestStores.BUCKET).prefix("p")
        .credentials(S3TestStores.accessKey(), secret).build()) {
      assertFalse(store.toString().contains(secret));
      assertFalse(store.describe().contains(secret));
      BlobStoreException e = assertThrows(BlobStoreException.class, () -> put(store, "a", new byte[10]));
      assertTrue(e.getMessage().contains("secret key is wrong"), e.getMessage());
      assertTrue(e.getMessage().contains("secret_key"), e.getMessage());
      assertNamesStoreWithoutSecret(e, S3TestStores.BUCKET, S3TestStores.endpoint(), secret);
      for (Executable operation : List.<Executable>of(
          () -> store.read("a").close(), () -> store.read("a", 1, 2).close(), () -> store.length("a"),
          () -> store.list(""), () -> store.delete("a"), () -> store.deleteAll(List.of("a")),
          () -> put(store, "big", new byte[(int) S3TestStores.PART_SIZE]))) {
        BlobStoreException other = assertThrows(BlobStoreException.class, operation);
        assertFalse(other instanceof BlobNotFoundException, other.getMessage());
        assertTrue(other.getMessage().contains("secret_key"), other.getMessage());
        assertFalse(other.isRetryable(), other.getMessage());
        assertNamesStoreWithoutSecret(other, S3TestStores.BUCKET, S3TestStores.endpoint(), secret);
      }
    }
  }

  @Test
  void unknownAccessKeySaysSo() throws IOException {
    String secret = "some-secret-" + UUID.randomUUID();
    try (S3BlobStore store = S3TestStores.baseBuilder().bucket(S3TestStores.BUCKET).prefix("p")
        .credentials("no-such-access-key", secret).build()) {
      BlobStoreException e = assertThrows(BlobStoreException.class, () -> put(store, "a", new byte[10]));
      assertTrue(e.getMessage().contains("access key id is not known"), e.getMessage());
      assertNamesStoreWithoutSecret(e, S3TestStores.BUCKET, S3TestStores.endpoint(), secret);
      BlobStoreException head = assertThrows(BlobStoreException.class, () -> store.length("a"));
      assertTrue(head.getMessage().contains("access_key"), head.getMessage());
      assertNamesStoreWithoutSecret(head, S3TestStores.BUCKET, S3TestStores.endpoint(), secret);
    }
  }

  @Test
  void unreachableEndpointSaysSo() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    String endpoint = "http://127.0.0.1:" + port;
    String secret = "closed-port-secret-" + UUID.randomUUID();
    try (S3BlobStore store = S3BlobStore.builder().bucket("some-bucket").prefix("p").endpoint(endpoint)
        .credentials("someone", secret).connectTimeout(Duration.ofSeconds(1)).readTimeout(Duration.ofSeconds(2))
        .build()) {
      for (Executable operation : List.<Executable>of(
          () -> put(store, "a", new byte[10]), () -> store.read("a").close(), () -> store.read("a", 0, 3).close(),
          () -> store.length("a"), () -> store.list(""), () -> store.delete("a"))) {
        BlobStoreException e = assertThrows(BlobStoreException.class, operation);
        assertFalse(e instanceof BlobNotFoundException, e.getMessage());
        assertTrue(e.getMessage().contains("cannot connect to endpoint " + endpoint), e.getMessage());
        assertTrue(e.isRetryable(), e.getMessage());
        assertNamesStoreWithoutSecret(e, "some-bucket", endpoint, secret);
      }
    }
  }

  @Test
  void verifierPassesOnMinioAndFailsAtWriteForAMissingBucket() throws IOException {
    try (BlobStore store = S3TestStores.newStore()) {
      BlobStoreVerifier.verify(store, "");
      assertEquals(List.of(), store.list(""));
    }
    String bucket = "permafrost-missing-" + UUID.randomUUID();
    try (BlobStore store = S3TestStores.baseBuilder().bucket(bucket).build()) {
      VerificationException e = assertThrows(VerificationException.class, () -> BlobStoreVerifier.verify(store, ""));
      assertEquals(BlobStoreVerifier.Step.WRITE, e.step());
      assertTrue(e.getMessage().contains("bucket '" + bucket + "' does not exist"), e.getMessage());
      assertFalse(stackTrace(e).contains(S3TestStores.secretKey()));
    }
  }

  // ------------------------------------------------------------------------------- ranges and multipart

  @Test
  void rangePastTheEndNamesTheRangeAndTheLength() throws IOException {
    try (BlobStore store = S3TestStores.newStore()) {
      put(store, "blob", randomBytes(1000));
      // 990+20 gets a short Content-Range; 1000+1 and 5000+10 get a 416; 1001+0 sends no GET.
      for (long[] range : new long[][] {{990, 20}, {1000, 1}, {5000, 10}, {1001, 0}}) {
        BlobStoreException e = assertThrows(BlobStoreException.class, () -> store.read("blob", range[0], range[1]).close());
        assertFalse(e instanceof BlobNotFoundException);
        String message = e.getMessage();
        assertTrue(message.contains(BlobStoreException.range(range[0], range[1])), message);
        assertTrue(message.contains("length 1000"), message);
        assertTrue(message.contains("blob: blob"), message);
        assertFalse(e.isRetryable(), message);
      }
      assertThrows(BlobNotFoundException.class, () -> store.read("nope", 0, 0));
      // A stream closed early is fine, and the store stays usable.
      try (InputStream in = store.read("blob", 0, 1000)) {
        assertEquals(10, in.readNBytes(10).length);
      }
      assertEquals(1000, store.length("blob"));
    }
  }

  @Test
  void largeBlobsAreMultipartUploads() throws IOException {
    try (S3BlobStore store = (S3BlobStore) S3TestStores.newStore()) {
      byte[] data = randomBytes((int) (2 * S3TestStores.PART_SIZE) + 1000);
      put(store, "big", data);
      String etag = store.client().headObject(b -> b.bucket(store.bucket()).key(store.prefix() + "big")).eTag();
      assertTrue(etag.replace("\"", "").endsWith("-3"), "expected a three-part upload, ETag " + etag);
      try (InputStream in = store.read("big")) {
        assertArrayEquals(data, in.readAllBytes());
      }
      byte[] small = randomBytes((int) S3TestStores.PART_SIZE - 1);
      put(store, "small", small);
      String smallEtag = store.client().headObject(b -> b.bucket(store.bucket()).key(store.prefix() + "small")).eTag();
      assertFalse(smallEtag.contains("-"), "expected a single PUT, ETag " + smallEtag);
    }
  }

  @Test
  void aFailedMultipartUploadLeavesNoBlobAndNoUpload() throws IOException {
    try (S3BlobStore store = (S3BlobStore) S3TestStores.newStore()) {
      int length = (int) (2 * S3TestStores.PART_SIZE) + 4321;
      byte[] old = randomBytes(length);
      put(store, "kept", old);

      // The source breaks in the second part.
      InputStream breaking = new InputStream() {
        long served;

        @Override
        public int read() throws IOException {
          byte[] one = new byte[1];
          return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          if (served > S3TestStores.PART_SIZE + 100_000) {
            throw new IOException("source broke");
          }
          int n = Math.min(len, 65536);
          Arrays.fill(b, off, off + n, (byte) 3);
          served += n;
          return n;
        }
      };
      BlobStoreException broke = assertThrows(BlobStoreException.class, () -> store.write("kept", breaking, length));
      assertTrue(broke.getMessage().contains("source broke"), broke.getMessage());
      assertThrows(BlobStoreException.class, () -> store.write("new", breaking, length));

      // The source ends short, in the last part.
      byte[] tooFew = randomBytes(length - 10);
      BlobStoreException shortSource =
          assertThrows(BlobStoreException.class, () -> store.write("short", new ByteArrayInputStream(tooFew), length));
      assertTrue(shortSource.getMessage().contains("ended after " + (length - 10)), shortSource.getMessage());

      try (InputStream in = store.read("kept")) {
        assertArrayEquals(old, in.readAllBytes(), "a failed overwrite must leave the old blob");
      }
      assertFalse(store.exists("new"));
      assertFalse(store.exists("short"));
      assertEquals(List.of("kept"), store.list("").stream().map(BlobMetadata::name).toList());
      var uploads = store.client().listMultipartUploads(b -> b.bucket(store.bucket()).prefix(store.prefix())).uploads();
      assertEquals(List.of(), uploads, "dangling multipart uploads");
    }
  }

  // --------------------------------------------------------------------------------------- list and delete

  @Test
  void deleteAllSpansSeveralBatches() throws IOException {
    try (BlobStore store = S3TestStores.newStore()) {
      List<String> names = new ArrayList<>();
      for (int i = 0; i < 2100; i++) {
        names.add(String.format("d/%05d", i));
      }
      for (int i : new int[] {0, 999, 1000, 1500, 2099}) {
        put(store, names.get(i), new byte[] {(byte) i});
      }
      put(store, "keep/me", new byte[1]);
      assertEquals(5, store.list("d/").size());
      store.deleteAll(names);
      assertEquals(List.of(), store.list("d/"));
      assertTrue(store.exists("keep/me"));
      assertThrows(IllegalArgumentException.class, () -> store.deleteAll(List.of("keep/me", "../x")));
      assertTrue(store.exists("keep/me"), "an invalid name must fail the batch before anything is deleted");
      store.deleteAll(List.of());
    }
  }

  @Test
  void folderMarkersAndKeysOutsideThePrefixAreNotListed() throws IOException {
    try (S3BlobStore store = (S3BlobStore) S3TestStores.newStore()) {
      put(store, "dir/file", new byte[2]);
      store.client().putObject(b -> b.bucket(store.bucket()).key(store.prefix() + "dir/"), RequestBody.empty());
      // A sibling prefix that starts with this store's prefix name must not leak in.
      String sibling = store.prefix().substring(0, store.prefix().length() - 1) + "-sibling/x";
      store.client().putObject(b -> b.bucket(store.bucket()).key(sibling), RequestBody.fromBytes(new byte[1]));
      assertEquals(List.of(new BlobMetadata("dir/file", 2)), store.list(""));
    }
  }

  @Test
  void aClosedStoreRefusesWork() throws IOException {
    BlobStore store = S3TestStores.newStore();
    store.close();
    store.close();
    assertThrows(IllegalStateException.class, () -> store.length("x"));
  }
}
