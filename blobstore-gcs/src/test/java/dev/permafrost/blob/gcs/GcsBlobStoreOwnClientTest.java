/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.auth.Credentials;
import com.google.cloud.NoCredentials;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStoreException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A store on the application's own {@link Storage} ({@link GcsBlobStore.Builder#storage}), and one on the
 * application's {@link Credentials} ({@link GcsBlobStore.Builder#credentials}): against fake-gcs-server, and, to
 * see what goes on the wire, a local HTTP server.
 */
class GcsBlobStoreOwnClientTest {
  private static final String TOKEN = "token-from-the-application";

  private final Random random = new Random();

  /** The application's client, on the emulator, as an application would build it: one attempt per request. */
  private static Storage applicationStorage() {
    return StorageOptions.http()
        .setHost(GcsTestStores.endpoint())
        .setProjectId(GcsTestStores.projectId())
        .setCredentials(NoCredentials.getInstance())
        .setRetrySettings(StorageOptions.getDefaultRetrySettings().toBuilder().setMaxAttempts(1).build())
        .build()
        .getService();
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private static byte[] read(GcsBlobStore store, String name, long offset, long length) throws IOException {
    try (InputStream in = store.read(name, offset, length)) {
      return in.readAllBytes();
    }
  }

  // ------------------------------------------------------------------------------------- storage(...)

  @Test
  void aStoreOnTheApplicationsStorageDoesARoundTripAndLeavesItOpen() throws Exception {
    String bucket = GcsTestStores.newBucket();
    Storage storage = applicationStorage();
    try {
      GcsBlobStore store = GcsBlobStore.builder().bucket(bucket).prefix("own/client").storage(storage)
          .singleUploadThreshold(256 << 10).partSize(256 << 10).listPageSize(2).build();
      assertEquals("gs://" + bucket + "/own/client (endpoint " + GcsTestStores.endpoint() + ")", store.describe());

      byte[] small = bytes(1000);
      byte[] large = bytes((1 << 20) + 17); // above the threshold: a resumable upload in 256 KiB parts
      store.write("a/small", new ByteArrayInputStream(small), small.length);
      store.write("a/large", new ByteArrayInputStream(large), large.length);
      store.write("b/one", new ByteArrayInputStream(new byte[] {9}), 1);
      assertNotNull(storage.get(BlobId.of(bucket, "own/client/a/large")), "written below the prefix");

      try (InputStream in = store.read("a/small")) {
        assertArrayEquals(small, in.readAllBytes());
      }
      assertArrayEquals(Arrays.copyOfRange(large, 300_000, 800_000), read(store, "a/large", 300_000, 500_000));
      assertArrayEquals(Arrays.copyOfRange(small, 990, 1000), read(store, "a/small", 990, 10));
      assertEquals(large.length, store.length("a/large"));
      assertEquals(List.of(new BlobMetadata("a/large", large.length), new BlobMetadata("a/small", 1000)),
          store.list("a/"));
      assertEquals(3, store.list("").size(), "three blobs, in pages of two");

      BlobStoreException past = assertThrows(BlobStoreException.class, () -> read(store, "a/small", 990, 20));
      assertTrue(past.getMessage().contains("past the end") && past.getMessage().contains("length 1000"),
          past.getMessage());
      assertFalse(past.isRetryable(), past.getMessage());
      assertThrows(BlobNotFoundException.class, () -> store.read("a/missing"));

      store.delete("a/small");
      store.deleteAll(List.of("a/large", "b/one"));
      assertEquals(List.of(), store.list(""));
      store.write("kept", new ByteArrayInputStream(small), small.length);

      store.close();
      assertThrows(IllegalStateException.class, () -> store.length("kept"));

      // The store never closes the application's client: it still works.
      assertEquals(1000L, storage.get(BlobId.of(bucket, "own/client/kept")).getSize());
      storage.create(BlobInfo.newBuilder(bucket, "after-close").build(), new byte[] {1, 2, 3});
      assertArrayEquals(new byte[] {1, 2, 3}, storage.readAllBytes(BlobId.of(bucket, "after-close")));
    } finally {
      storage.close();
    }
  }

  @Test
  void aMissingBucketOnTheApplicationsStorageNamesItsEndpoint() throws Exception {
    String bucket = GcsTestStores.missingBucket();
    Storage storage = applicationStorage();
    try (GcsBlobStore store = GcsBlobStore.builder().bucket(bucket).storage(storage).build()) {
      BlobStoreException e = assertThrows(BlobStoreException.class, () -> store.length("blob"));
      assertFalse(e instanceof BlobNotFoundException, e.getMessage());
      assertTrue(e.getMessage().contains("bucket '" + bucket + "' does not exist at " + GcsTestStores.endpoint()),
          e.getMessage());
    } finally {
      storage.close();
    }
  }

  @Test
  void settingsThatConfigureAClientAreRefusedNextToTheApplicationsStorage() throws Exception {
    Map<String, UnaryOperator<GcsBlobStore.Builder>> clientSettings = new LinkedHashMap<>();
    clientSettings.put("endpoint", b -> b.endpoint(GcsTestStores.endpoint()));
    clientSettings.put("credentials", GcsBlobStore.Builder::noCredentials);
    clientSettings.put("credentials_file", b -> b.credentialsFile(Path.of("/etc/permafrost/sa.json")));
    clientSettings.put("project_id", b -> b.projectId("some-project"));
    clientSettings.put("connect_timeout", b -> b.connectTimeout(Duration.ofSeconds(5)));
    clientSettings.put("read_timeout", b -> b.setting("read_timeout", "5s"));
    Storage storage = applicationStorage();
    try {
      for (Map.Entry<String, UnaryOperator<GcsBlobStore.Builder>> setting : clientSettings.entrySet()) {
        GcsBlobStore.Builder builder = GcsBlobStore.builder().bucket("bucket").storage(storage);
        setting.getValue().apply(builder);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build, setting.getKey());
        assertTrue(e.getMessage().contains("'" + setting.getKey() + "'")
            && e.getMessage().contains("configures the GCS client") && e.getMessage().contains("storage("),
            e.getMessage());
      }
      IllegalArgumentException both = assertThrows(IllegalArgumentException.class, () -> GcsBlobStore.builder()
          .bucket("bucket").storage(storage).credentials(new TokenCredentials()).build());
      assertTrue(both.getMessage().contains("storage(") && both.getMessage().contains("credentials("),
          both.getMessage());
    } finally {
      storage.close();
    }
  }

  @Test
  void anApplicationsStorageThatRetriesIsWarnedAbout() throws Throwable {
    Storage retrying = StorageOptions.http().setHost(GcsTestStores.endpoint()).setProjectId(GcsTestStores.projectId())
        .setCredentials(NoCredentials.getInstance()).build().getService(); // the SDK's default: up to 6 attempts
    Storage oneAttempt = applicationStorage();
    try {
      String warned = stderrWhile(() -> GcsBlobStore.builder().bucket("bucket").storage(retrying).build().close());
      assertTrue(warned.contains("retries requests itself (max attempts 6)") && warned.contains("attempts multiply")
          && warned.contains("gs://bucket"), warned);
      String quiet = stderrWhile(() -> GcsBlobStore.builder().bucket("bucket").storage(oneAttempt).build().close());
      assertFalse(quiet.contains("retries requests itself"), quiet);
    } finally {
      retrying.close();
      oneAttempt.close();
    }
  }

  /** What is written to {@code System.err} (where the test logger writes) while {@code action} runs. */
  private static String stderrWhile(Executable action) throws Throwable {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.execute();
    } finally {
      System.setErr(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  // ------------------------------------------------------------------------------------- credentials(...)

  @Test
  void givenCredentialsAreUsedByTheClientTheStoreBuilds() throws Exception {
    String bucket = GcsTestStores.newBucket();
    TokenCredentials credentials = new TokenCredentials();
    // fake-gcs-server takes any token, so the round trip shows the credentials do not stand in the way, and the
    // count that the client asked them for a token on every request.
    try (GcsBlobStore store = GcsBlobStore.builder().bucket(bucket).prefix("creds")
        .endpoint(GcsTestStores.endpoint()).projectId(GcsTestStores.projectId()).credentials(credentials).build()) {
      byte[] data = bytes(5000);
      store.write("blob", new ByteArrayInputStream(data), data.length);
      assertArrayEquals(Arrays.copyOfRange(data, 100, 200), read(store, "blob", 100, 100));
      assertEquals(List.of(new BlobMetadata("blob", 5000)), store.list(""));
      store.delete("blob");
      assertFalse(store.exists("blob"));
      assertTrue(credentials.uses.get() >= 5, "the credentials were asked for " + credentials.uses.get() + " tokens");
    }
  }

  @Test
  void givenCredentialsPutTheirTokenOnEveryRequest() throws Exception {
    List<String> authorizations = new CopyOnWriteArrayList<>();
    try (LocalHttpServer server = LocalHttpServer.start(exchange -> {
          authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
          LocalHttpServer.sendError(exchange, 503, "backendError");
        });
        GcsBlobStore store = GcsBlobStore.builder().bucket("bucket").endpoint(server.endpoint()).projectId("p")
            .credentials(new TokenCredentials()).build()) {
      assertThrows(BlobStoreException.class, () -> store.length("blob"));
      assertThrows(BlobStoreException.class, () -> store.write("blob", new ByteArrayInputStream(new byte[3]), 3));
      assertEquals(2, authorizations.size(), server.requests().toString());
      assertTrue(authorizations.stream().allMatch(("Bearer " + TOKEN)::equals), authorizations.toString());
    }
  }

  @Test
  void credentialSettingsAreRefusedNextToGivenCredentials() {
    for (UnaryOperator<GcsBlobStore.Builder> setting : List.<UnaryOperator<GcsBlobStore.Builder>>of(
        GcsBlobStore.Builder::noCredentials, b -> b.credentialsFile(Path.of("/etc/permafrost/sa.json")))) {
      GcsBlobStore.Builder builder = GcsBlobStore.builder().bucket("bucket").credentials(new TokenCredentials());
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> setting.apply(builder).build());
      assertTrue(e.getMessage().contains("contradicts the Credentials given"), e.getMessage());
    }
  }

  /** Credentials an application might bring: a fixed bearer token; counts how often the client asks for it. */
  private static final class TokenCredentials extends Credentials {
    private static final long serialVersionUID = 1L;

    final AtomicInteger uses = new AtomicInteger();

    @Override
    public String getAuthenticationType() {
      return "OAuth2";
    }

    @Override
    public Map<String, List<String>> getRequestMetadata(URI uri) {
      uses.incrementAndGet();
      return Map.of("Authorization", List.of("Bearer " + TOKEN));
    }

    @Override
    public boolean hasRequestMetadata() {
      return true;
    }

    @Override
    public boolean hasRequestMetadataOnly() {
      return true;
    }

    @Override
    public void refresh() {}
  }
}
