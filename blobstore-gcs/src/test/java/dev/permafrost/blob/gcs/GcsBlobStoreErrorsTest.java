/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.BlobStoreVerifier;
import dev.permafrost.blob.BlobStores;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user sees when something is wrong: a missing bucket, an endpoint nobody listens on, unusable
 * credentials. Each message names the backend (gs://), the bucket and the endpoint, and no secret.
 */
class GcsBlobStoreErrorsTest {
  @TempDir Path dir;

  private static List<Executable> everyOperation(BlobStore store) {
    return List.of(
        () -> store.write("a/blob", new ByteArrayInputStream(new byte[10]), 10),
        () -> store.write("a/large", new ByteArrayInputStream(new byte[2 << 20]), 2 << 20),
        () -> store.read("a/blob").close(),
        () -> store.read("a/blob", 2, 3).close(),
        () -> store.length("a/blob"),
        () -> store.exists("a/blob"),
        () -> store.list("a/"),
        () -> store.delete("a/blob"),
        () -> store.deleteAll(List.of("a/blob", "a/other")));
  }

  private static String fullText(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    return w.toString();
  }

  private static void assertNamesStore(BlobStoreException e, String bucket, String endpoint) {
    String m = e.getMessage();
    assertTrue(m.contains("gs://" + bucket), "names backend and bucket: " + m);
    assertTrue(m.contains(endpoint), "names the endpoint: " + m);
  }

  @Test
  void aMissingBucketIsReportedAsSuchByEveryOperation() throws IOException {
    String bucket = GcsTestStores.missingBucket();
    try (BlobStore store = GcsTestStores.builder(bucket).prefix("p").build()) {
      for (Executable op : everyOperation(store)) {
        BlobStoreException e = assertThrows(BlobStoreException.class, op);
        assertFalse(e instanceof BlobNotFoundException, "a missing bucket is not a missing blob: " + e.getMessage());
        assertNamesStore(e, bucket, GcsTestStores.endpoint());
        assertTrue(e.getMessage().contains("bucket '" + bucket + "' does not exist"), e.getMessage());
        assertFalse(e.isRetryable(), "a missing bucket stays missing: " + e.getMessage());
      }
    }
  }

  @Test
  void verifyPassesOnTheEmulator() throws IOException {
    try (BlobStore store = GcsTestStores.newStore()) {
      BlobStoreVerifier.verify(store, "");
      BlobStoreVerifier.verify(store, "nested/");
      assertEquals(List.of(), store.list(""));
    }
  }

  @Test
  void verifyAgainstAMissingBucketFailsAtTheWriteStep() throws IOException {
    String bucket = GcsTestStores.missingBucket();
    try (BlobStore store = GcsTestStores.builder(bucket).build()) {
      BlobStoreVerifier.VerificationException e =
          assertThrows(BlobStoreVerifier.VerificationException.class, () -> BlobStoreVerifier.verify(store, ""));
      assertEquals(BlobStoreVerifier.Step.WRITE, e.step());
      assertTrue(e.getMessage().contains("WRITE") && e.getMessage().contains("does not exist")
          && e.getMessage().contains(bucket), e.getMessage());
    }
  }

  @Test
  void anUnreachableEndpointIsReportedAsSuchQuickly() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    } // closed: nothing listens there now
    String endpoint = "http://127.0.0.1:" + port;
    URI uri = URI.create("gs://some-bucket/p?credentials=none&endpoint=" + endpoint
        + "&connect_timeout=2s&read_timeout=2s&max_retries=0");
    try (BlobStore store = BlobStores.open(uri)) {
      for (Executable op : everyOperation(store)) {
        BlobStoreException e = assertThrows(BlobStoreException.class, op);
        assertFalse(e instanceof BlobNotFoundException, e.getMessage());
        assertNamesStore(e, "some-bucket", endpoint);
        assertTrue(e.getMessage().contains("connection refused") && e.getMessage().contains("check the endpoint"),
            e.getMessage());
        assertTrue(e.isRetryable(), "a refused connection may be accepted later: " + e.getMessage());
      }
    }
  }

  @Test
  void aMissingCredentialsFileIsNamedAtOpen() {
    Path missing = dir.resolve("no-such-key.json");
    BlobStoreException e = assertThrows(BlobStoreException.class,
        () -> BlobStores.open(URI.create("gs://bucket-x/p?credentials_file=" + missing + "&endpoint="
            + GcsTestStores.endpoint())));
    assertTrue(e.getMessage().contains(missing.toString()) && e.getMessage().contains("does not exist")
        && e.getMessage().contains("gs://bucket-x/p") && e.getMessage().contains(GcsTestStores.endpoint()),
        e.getMessage());
  }

  @Test
  void aMalformedCredentialsFileIsRejectedWithoutQuotingIt() throws IOException {
    String secret = "-----BEGIN PRIVATE KEY-----\nTOPSECRETKEYMATERIAL\n-----END PRIVATE KEY-----\n";
    Path file = dir.resolve("broken.json");
    Files.writeString(file, "{\"type\": \"service_account\", \"private_key\": \"" + secret.replace("\n", "\\n")
        + "\", \"client_email\": oops-not-json");
    BlobStoreException e = assertThrows(BlobStoreException.class,
        () -> GcsTestStores.builder("bucket-y").setting(GcsSettings.CREDENTIALS, null).credentialsFile(file).build());
    assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("not a usable"), e.getMessage());
    assertFalse(fullText(e).contains("TOPSECRET"), fullText(e));
  }

  /**
   * fake-gcs-server accepts any credentials, so a key GCS would refuse cannot be refused here. What can be
   * tested for real is a well-formed service-account key whose token exchange fails: its token_uri points at
   * the emulator, which has no OAuth endpoint. The client must report unusable credentials, quote no key and
   * no token, and still name the store.
   */
  @Test
  void credentialsThatCannotGetATokenAreReportedWithoutLeakingTheKey() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    KeyPair pair = generator.generateKeyPair();
    String pem = "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(pair.getPrivate().getEncoded())
        + "\n-----END PRIVATE KEY-----\n";
    String keyLine = pem.split("\n")[1];
    Path file = dir.resolve("sa.json");
    Files.writeString(file, "{\n"
        + "  \"type\": \"service_account\",\n"
        + "  \"project_id\": \"permafrost-test\",\n"
        + "  \"private_key_id\": \"0123456789abcdef\",\n"
        + "  \"private_key\": \"" + pem.replace("\n", "\\n") + "\",\n"
        + "  \"client_email\": \"tester@permafrost-test.iam.gserviceaccount.com\",\n"
        + "  \"client_id\": \"1234567890\",\n"
        + "  \"token_uri\": \"" + GcsTestStores.endpoint() + "/no-oauth-here/token\"\n"
        + "}\n");
    String bucket = GcsTestStores.newBucket();
    try (BlobStore store = GcsTestStores.builder(bucket)
        .setting(GcsSettings.CREDENTIALS, null)
        .credentialsFile(file)
        .build()) {
      assertFalse(store.toString().contains(keyLine) || store.describe().contains(keyLine));
      BlobStoreException e = assertThrows(
          BlobStoreException.class, () -> store.write("x", new ByteArrayInputStream(new byte[1]), 1));
      assertNamesStore(e, bucket, GcsTestStores.endpoint());
      assertTrue(e.getMessage().contains("access token") && e.getMessage().contains("credentials_file"), e.getMessage());
      assertFalse(e.isRetryable(), "the token endpoint answered 404, which no retry changes: " + e.getMessage());
      assertFalse(fullText(e).contains(keyLine), "the private key leaks into the exception");
    }
  }

  @Test
  void readingAClosedStreamFailsNamingTheBlob() throws IOException {
    try (BlobStore store = GcsTestStores.newStore()) {
      store.write("b", new ByteArrayInputStream(new byte[100]), 100);
      InputStream in = store.read("b", 0, 50);
      in.close();
      IOException e = assertThrows(IOException.class, in::read);
      assertTrue(e.getMessage().contains("b") && e.getMessage().contains("closed"), e.getMessage());
    }
  }

  @Test
  void settingsMapIsNotEchoedInErrors() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> GcsBlobStore.builder().bucket("bucket-z").settings(Map.of("credentials", "none", "password", "hunter2")).build());
    assertTrue(e.getMessage().contains("password"), e.getMessage());
    assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
  }
}
