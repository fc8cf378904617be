/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.azure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceAsyncClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobListDetails;
import com.azure.storage.blob.models.BlockListType;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.sas.BlobContainerSasPermission;
import com.azure.storage.blob.sas.BlobServiceSasSignatureValues;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.BlobStoreVerifier;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.blob.StorePolicy;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Azure-specific behaviour on Azurite: URIs and settings, renamed settings, a store on the user's own client,
 * credentials, errors, block uploads, paging.
 */
class AzureBlobStoreTest {
  private final Random random = new Random();

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  /** Every message in the chain, plus the store's description and toString. */
  private static String everything(BlobStore store, Throwable e) {
    StringBuilder sb = new StringBuilder(store.describe()).append('\n').append(store).append('\n');
    for (Throwable t = e; t != null; t = t.getCause()) {
      sb.append(t).append('\n');
      for (Throwable s : t.getSuppressed()) {
        sb.append(s).append('\n');
      }
    }
    return sb.toString();
  }

  private static void assertNoSecret(String text, String... secrets) {
    for (String secret : secrets) {
      assertFalse(text.contains(secret), "a secret appears in: " + text);
      assertFalse(text.contains(enc(secret)), "a URL-encoded secret appears in: " + text);
    }
  }

  // ------------------------------------------------------------------------------------------ URIs and settings

  @Test
  void uriGivesContainerPrefixAndSettings() throws IOException {
    String container = AzureTestStores.newContainer();
    URI uri = URI.create("azblob://" + container + "/snap/shots/?endpoint=" + enc(AzureTestStores.endpoint())
        + "&account=" + AzureTestStores.account() + "&account_key=" + enc(AzureTestStores.key())
        + "&part_size=64kb&single_upload_threshold=64kb&list_page_size=3&max_retries=2&retry_delay=100ms"
        + "&connect_timeout=5s&read_timeout=PT30S&download_chunk_size=16kb");
    try (BlobStore store = BlobStores.open(uri)) {
      AzureBlobStore azure = assertInstanceOf(AzureBlobStore.class, FilterBlobStore.unwrap(store));
      // The retry settings went to the store policy around the backend.
      StorePolicy policy = StorePolicy.of(store);
      assertEquals(2, policy.maxRetries());
      assertEquals(Duration.ofMillis(100), policy.retryDelay());
      assertEquals(container, azure.container());
      assertEquals("snap/shots/", azure.prefix());
      assertEquals(AzureTestStores.account(), azure.account());
      assertEquals(
          "azblob://" + container + "/snap/shots (account " + AzureTestStores.account() + ", endpoint "
              + AzureTestStores.endpoint() + ")",
          store.describe());
      assertNoSecret(everything(store, null), AzureTestStores.key());
      BlobStoreVerifier.verify(store, "");
      byte[] data = randomBytes(200_000);
      store.write("a/b", new ByteArrayInputStream(data), data.length);
      assertArrayEquals(data, store.read("a/b").readAllBytes());
    }
    // The blob sits below the prefix in the container.
    BlobContainerClient raw = AzureTestStores.serviceClient().getBlobContainerClient(container);
    assertTrue(raw.getBlobClient("snap/shots/a/b").exists());
  }

  @Test
  void uriWithoutPrefixUsesTheWholeContainer() throws IOException {
    String container = AzureTestStores.newContainer();
    URI uri = URI.create("azblob://" + container + "?endpoint=" + enc(AzureTestStores.endpoint())
        + "&account=" + AzureTestStores.account() + "&account_key=" + enc(AzureTestStores.key()));
    try (BlobStore store = BlobStores.open(uri)) {
      assertEquals("", ((AzureBlobStore) FilterBlobStore.unwrap(store)).prefix());
      store.write("top", new ByteArrayInputStream(new byte[3]), 3);
      assertEquals(List.of(new BlobMetadata("top", 3)), store.list(""));
      assertTrue(store.describe().startsWith("azblob://" + container + " ("), store.describe());
    }
  }

  @Test
  void unknownSettingIsRejectedByNameInUriAndBuilder() {
    String key = AzureTestStores.key();
    URI uri = URI.create("azblob://c0ntainer/p?account=a&account_key=" + enc(key) + "&blok_size=1mb");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BlobStores.open(uri));
    assertTrue(e.getMessage().contains("blok_size"), e.getMessage());
    assertTrue(e.getMessage().contains("part_size"), "lists the known settings: " + e.getMessage());
    assertNoSecret(e.getMessage(), key);

    IllegalArgumentException b = assertThrows(
        IllegalArgumentException.class,
        () -> AzureBlobStore.builder().container("c0ntainer").account("a").accountKey(key).setting("blok_size", "1mb").build());
    assertTrue(b.getMessage().contains("blok_size"), b.getMessage());
  }

  @Test
  void malformedUrisAndSettingsAreRejectedClearly() {
    String key = AzureTestStores.key();
    List<String[]> cases = List.of(
        new String[] {"azblob:///prefix-only?account=a", "no container"},
        new String[] {"azblob://Bad_Container/p?account=a", "invalid container name"},
        new String[] {"azblob://user:" + enc(key) + "@container/p?account=a", "user info"},
        new String[] {"azblob://container/p", "set 'account'"},
        new String[] {"azblob://container/p?account=a&account_key=" + enc(key) + "&sas_token=sv%3D1", "cannot be combined"},
        new String[] {"azblob://container/p?account_key=" + enc(key) + "&endpoint=http%3A%2F%2F127.0.0.1%3A1%2Fx", "needs 'account'"},
        new String[] {"azblob://container/p?connection_string=x&account=a", "cannot be combined"},
        new String[] {"azblob://container/p?account=a&account_key=" + enc(key) + "&part_size=lots", "part_size"},
        new String[] {"azblob://container/p?account=a&account_key=" + enc(key) + "&list_page_size=0", "list_page_size"},
        new String[] {"azblob://container/p?account=a&account_key=" + enc(key) + "&read_timeout=soon", "read_timeout"},
        new String[] {"azblob://container/p?account=a&endpoint=ftp%3A%2F%2Fhost", "endpoint"},
        new String[] {"azblob://container/a/../b?account=a", "prefix"});
    for (String[] c : cases) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> BlobStores.open(URI.create(c[0])), c[0]);
      assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
      assertNoSecret(e.getMessage(), key);
    }
    IllegalArgumentException badKey = assertThrows(
        IllegalArgumentException.class,
        () -> AzureBlobStore.builder().container("container").account("a").accountKey("not base64 !!secret").build());
    assertFalse(badKey.getMessage().contains("!!secret"), badKey.getMessage());
  }

  @Test
  void withoutKeySasOrConnectionStringTheDefaultCredentialIsUsed() throws IOException {
    // Building sends no request, so this does not reach for any identity endpoint.
    AzureBlobStore store = AzureBlobStore.builder().container("container").prefix("p").account("myaccount").build();
    assertEquals(
        "azblob://container/p (account myaccount, endpoint https://myaccount.blob.core.windows.net)", store.describe());
    store.close();
  }

  @Test
  void providerIsFoundByScheme() throws IOException {
    URI uri = URI.create("azblob://" + AzureTestStores.newContainer() + "/x?endpoint=" + enc(AzureTestStores.endpoint())
        + "&account=" + AzureTestStores.account() + "&account_key=" + enc(AzureTestStores.key()));
    try (BlobStore store = BlobStores.open(uri)) {
      assertInstanceOf(AzureBlobStore.class, FilterBlobStore.unwrap(store));
      assertEquals(StorePolicy.DEFAULT, StorePolicy.of(store), "a URI without policy settings gets the defaults");
    }
    assertEquals("azblob", new AzureBlobStoreProvider().scheme());
  }

  @Test
  void retrySettingsInAUriGoToTheStorePolicy() throws IOException {
    URI uri = URI.create("azblob://" + AzureTestStores.newContainer() + "/p?endpoint=" + enc(AzureTestStores.endpoint())
        + "&account=" + AzureTestStores.account() + "&account_key=" + enc(AzureTestStores.key())
        + "&max_retries=5&retry_delay=250ms&retry_max_delay=2s&request_timeout=7s&read_timeout=20s");
    try (BlobStore store = BlobStores.open(uri)) {
      StorePolicy policy = StorePolicy.of(store);
      assertEquals(5, policy.maxRetries());
      assertEquals(Duration.ofMillis(250), policy.retryDelay());
      assertEquals(Duration.ofSeconds(2), policy.retryMaxDelay());
      assertEquals(Duration.ofSeconds(7), policy.requestTimeout());
      assertInstanceOf(AzureBlobStore.class, FilterBlobStore.unwrap(store));
      store.write("x", new ByteArrayInputStream(new byte[5]), 5);
      assertEquals(5, store.length("x"));
    }
  }

  @Test
  void policySettingsAreRejectedWhereNothingWouldApplyThem() {
    String key = AzureTestStores.key();
    // The builder and AzureBlobStore.open(URI) make a bare backend: a retry setting there would be silently ignored.
    IllegalArgumentException b = assertThrows(
        IllegalArgumentException.class,
        () -> AzureBlobStore.builder().container("c0ntainer").account("a").accountKey(key).setting("max_retries", "2").build());
    assertTrue(b.getMessage().contains("'max_retries'"), b.getMessage());
    assertTrue(b.getMessage().contains("store policy"), b.getMessage());
    IllegalArgumentException u = assertThrows(
        IllegalArgumentException.class,
        () -> AzureBlobStore.open(URI.create("azblob://c0ntainer/p?account=a&account_key=" + enc(key) + "&retry_delay=1s")));
    assertTrue(u.getMessage().contains("'retry_delay'"), u.getMessage());
    assertTrue(u.getMessage().contains("BlobStores.open"), u.getMessage());
    assertNoSecret(u.getMessage(), key);
  }

  // ------------------------------------------------------------------------------------------ part size

  /** The committed blocks of a blob, as the service lists them. */
  private static int committedBlocks(AzureBlobStore store, String blobName) {
    return AzureTestStores.serviceClient().getBlobContainerClient(store.container())
        .getBlobClient(store.prefix() + blobName).getBlockBlobClient()
        .listBlocks(BlockListType.COMMITTED).getCommittedBlocks().size();
  }

  @Test
  void partSizeByUriSettingOrMethodAndNotByItsOldName() throws IOException {
    String container = AzureTestStores.newContainer();
    String base = "azblob://" + container + "/PREFIX?endpoint=" + enc(AzureTestStores.endpoint()) + "&account="
        + AzureTestStores.account() + "&account_key=" + enc(AzureTestStores.key()) + "&single_upload_threshold=64kb";
    byte[] data = randomBytes(200_000); // 4 blocks of at most 64 KiB
    try (AzureBlobStore byUri = AzureBlobStore.open(URI.create(base.replace("PREFIX", "uri") + "&part_size=64kb"));
        BlobStore withPolicy = BlobStores.open(URI.create(base.replace("PREFIX", "policy") + "&part_size=64kb&max_retries=1"));
        AzureBlobStore bySetting = AzureTestStores.credentials(AzureBlobStore.builder()).container(container)
            .prefix("setting").singleUploadThreshold(64 << 10).setting("part_size", "64kb").build();
        AzureBlobStore byMethod = AzureTestStores.credentials(AzureBlobStore.builder()).container(container)
            .prefix("method").singleUploadThreshold(64 << 10).partSize(64 << 10).build()) {
      for (BlobStore store : List.of(byUri, withPolicy, bySetting, byMethod)) {
        store.write("b", new ByteArrayInputStream(data), data.length);
        assertArrayEquals(data, store.read("b").readAllBytes());
        assertEquals(4, committedBlocks((AzureBlobStore) FilterBlobStore.unwrap(store), "b"), store.describe());
      }
    }
    // The old name, block_size, is an unknown setting.
    IllegalArgumentException u = assertThrows(IllegalArgumentException.class,
        () -> BlobStores.open(URI.create(base.replace("PREFIX", "old") + "&block_size=64kb")));
    assertTrue(u.getMessage().contains("unknown") && u.getMessage().contains("block_size"), u.getMessage());
    assertNoSecret(u.getMessage(), AzureTestStores.key());
  }

  // ------------------------------------------------------------------------------------------ bring your own client

  /** A user's client on the emulator that makes one attempt per request, as the store policy wants. */
  private static BlobServiceClientBuilder usersClientBuilder() {
    return AzureTestStores.serviceClientBuilder()
        .retryOptions(new RequestRetryOptions(RetryPolicyType.FIXED, 1, (Duration) null, null, null, null));
  }

  /** Write (single request and blocks), read, range read, list, length and delete on {@code store}. */
  private void roundTrip(AzureBlobStore store) throws IOException {
    byte[] small = randomBytes(1000);
    byte[] large = randomBytes(200_000);
    store.write("dir/small", new ByteArrayInputStream(small), small.length);
    store.write("dir/large", new ByteArrayInputStream(large), large.length);
    assertEquals(4, committedBlocks(store, "dir/large"), "the store's part_size applies on a given client");
    assertArrayEquals(small, store.read("dir/small").readAllBytes());
    assertArrayEquals(large, store.read("dir/large").readAllBytes());
    assertArrayEquals(Arrays.copyOfRange(large, 30_000, 130_000), store.read("dir/large", 30_000, 100_000).readAllBytes());
    assertEquals(List.of(new BlobMetadata("dir/large", large.length), new BlobMetadata("dir/small", small.length)),
        store.list("dir/"));
    assertEquals(large.length, store.length("dir/large"));
    store.delete("dir/small");
    assertThrows(BlobNotFoundException.class, () -> store.read("dir/small"));
    assertEquals(List.of(new BlobMetadata("dir/large", large.length)), store.list(""));
    BlobStoreVerifier.verify(store, "verify/");
  }

  @Test
  void aStoreOnTheUsersClientRoundTripsAndLeavesTheClientWorking() throws IOException {
    String container = AzureTestStores.newContainer();
    BlobServiceClient client = usersClientBuilder().buildClient();
    AzureBlobStore store = AzureBlobStore.builder().serviceClient(client).container(container).prefix("byo")
        .partSize(64 << 10).singleUploadThreshold(64 << 10).downloadChunkSize(16 << 10).listPageSize(2).build();
    assertEquals("azblob://" + container + "/byo (account " + AzureTestStores.account() + ", endpoint "
        + AzureTestStores.endpoint() + ")", store.describe());
    roundTrip(store);
    store.close();
    assertThrows(IllegalStateException.class, () -> store.list(""));
    assertFalse(store.connectionsReleased(), "the store has no connections of its own to release");

    // The user's client is untouched: it still reads, writes, lists and deletes.
    BlobContainerClient containerClient = client.getBlobContainerClient(container);
    assertEquals(200_000, containerClient.getBlobClient("byo/dir/large").getProperties().getBlobSize());
    containerClient.getBlobClient("after-close").upload(BinaryData.fromString("still works"));
    assertEquals("still works", containerClient.getBlobClient("after-close").downloadContent().toString());
    assertEquals(2, containerClient.listBlobs().stream().count());
    containerClient.getBlobClient("after-close").delete();
  }

  @Test
  void aStoreOnTheUsersAsyncClientOrBothRoundTrips() throws IOException {
    String container = AzureTestStores.newContainer();
    BlobServiceClientBuilder builder = usersClientBuilder();
    BlobServiceAsyncClient async = builder.buildAsyncClient();
    try (AzureBlobStore onAsync = AzureBlobStore.builder().serviceAsyncClient(async).container(container)
            .prefix("async").partSize(64 << 10).singleUploadThreshold(64 << 10).build();
        AzureBlobStore onBoth = AzureBlobStore.builder().serviceClient(builder.buildClient()).serviceAsyncClient(async)
            .container(container).prefix("both").partSize(64 << 10).singleUploadThreshold(64 << 10).build()) {
      roundTrip(onAsync);
      roundTrip(onBoth);
    }
    // The asynchronous client still works after both stores closed.
    assertEquals(200_000, async.getBlobContainerAsyncClient(container).getBlobAsyncClient("async/dir/large")
        .getProperties().block().getBlobSize());

    BlobServiceClient other = new BlobServiceClientBuilder()
        .endpoint("http://127.0.0.1:1/otheraccount").credential(new StorageSharedKeyCredential("otheraccount", AzureTestStores.key()))
        .buildClient();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> AzureBlobStore.builder().serviceClient(other).serviceAsyncClient(async).container(container).build());
    assertTrue(e.getMessage().contains("different accounts"), e.getMessage());
  }

  @Test
  void settingsThatConfigureAClientAreRefusedNextToAGivenClient() {
    BlobServiceClient client = usersClientBuilder().buildClient();
    String key = AzureTestStores.key();
    Map<String, String> clientSettings = Map.of(
        "account", AzureTestStores.account(),
        "endpoint", AzureTestStores.endpoint(),
        "account_key", key,
        "sas_token", "sv=2024-01-01&sig=secret",
        "connection_string", "AccountName=a;AccountKey=" + key,
        "connect_timeout", "5s",
        "read_timeout", "30s");
    clientSettings.forEach((name, value) -> {
      for (AzureBlobStore.Builder builder : List.of(
          AzureBlobStore.builder().serviceClient(client),
          AzureBlobStore.builder().serviceAsyncClient(usersClientBuilder().buildAsyncClient()))) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> builder.container("c0ntainer").setting(name, value).build(), name);
        assertTrue(e.getMessage().contains("'" + name + "' configures the SDK client"), e.getMessage());
        assertTrue(e.getMessage().contains("serviceClient"), e.getMessage());
        assertNoSecret(e.getMessage(), key, "sig=secret");
      }
    });
    IllegalArgumentException viaMethod = assertThrows(IllegalArgumentException.class,
        () -> AzureBlobStore.builder().serviceClient(client).container("c0ntainer").readTimeout(Duration.ofSeconds(5)).build());
    assertTrue(viaMethod.getMessage().contains("'read_timeout'"), viaMethod.getMessage());
    IllegalArgumentException credential = assertThrows(IllegalArgumentException.class,
        () -> AzureBlobStore.builder().serviceClient(client).container("c0ntainer")
            .credential(request -> reactor.core.publisher.Mono.empty()).build());
    assertTrue(credential.getMessage().contains("a credential and a client"), credential.getMessage());
    // What the store itself does with the service is still set by its own settings, and checked.
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> AzureBlobStore.builder().serviceClient(client).container("c0ntainer").setting("list_page_size", "0").build());
    assertTrue(bad.getMessage().contains("list_page_size"), bad.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> AzureBlobStore.builder().serviceClient(client).container("c0ntainer").setting("part_sise", "1mb").build());
  }

  // ------------------------------------------------------------------------------------------ credentials

  @Test
  void connectionStringWorksAndIsNeverShown() throws IOException {
    String connectionString = "DefaultEndpointsProtocol=http;AccountName=" + AzureTestStores.account() + ";AccountKey="
        + AzureTestStores.key() + ";BlobEndpoint=" + AzureTestStores.endpoint() + ";";
    String container = AzureTestStores.newContainer();
    try (BlobStore store =
        AzureBlobStore.builder().container(container).prefix("cs").connectionString(connectionString).build()) {
      BlobStoreVerifier.verify(store, "");
      assertTrue(store.describe().contains("endpoint " + AzureTestStores.endpoint()), store.describe());
      assertTrue(store.describe().contains("account " + AzureTestStores.account()), store.describe());
      BlobNotFoundException e = assertThrows(BlobNotFoundException.class, () -> store.length("nope"));
      assertNoSecret(everything(store, e), AzureTestStores.key(), connectionString);
    }
  }

  @Test
  void sasTokenWorksAndIsNeverShown() throws IOException {
    String container = AzureTestStores.newContainer();
    BlobContainerClient raw = AzureTestStores.serviceClient().getBlobContainerClient(container);
    OffsetDateTime expiry = OffsetDateTime.now().plusHours(2);
    String fullSas = raw.generateSas(new BlobServiceSasSignatureValues(
        expiry,
        new BlobContainerSasPermission()
            .setReadPermission(true)
            .setWritePermission(true)
            .setCreatePermission(true)
            .setDeletePermission(true)
            .setListPermission(true)));
    String readOnlySas =
        raw.generateSas(new BlobServiceSasSignatureValues(expiry, new BlobContainerSasPermission().setReadPermission(true)));
    String sig = signature(fullSas);
    String readOnlySig = signature(readOnlySas);

    try (BlobStore store = AzureBlobStore.builder()
        .container(container).prefix("sas").endpoint(AzureTestStores.endpoint()).account(AzureTestStores.account())
        .sasToken("?" + fullSas).build()) {
      BlobStoreVerifier.verify(store, "");
      store.write("kept", new ByteArrayInputStream(new byte[10]), 10);
      assertNoSecret(everything(store, null), fullSas, sig);
    }
    try (BlobStore store = BlobStores.open(URI.create("azblob://" + container + "/sas?endpoint="
        + enc(AzureTestStores.endpoint()) + "&account=" + AzureTestStores.account() + "&sas_token=" + enc(readOnlySas)))) {
      assertEquals(10, store.length("kept"));
      BlobStoreException e = assertThrows(
          BlobStoreException.class, () -> store.write("denied", new ByteArrayInputStream(new byte[10]), 10));
      assertTrue(e.getMessage().contains("access denied") || e.getMessage().contains("authentication failed"), e.getMessage());
      assertTrue(e.getMessage().contains("sas_token"), e.getMessage());
      assertNoSecret(everything(store, e), readOnlySas, readOnlySig);
    }
  }

  private static String signature(String sas) {
    for (String part : sas.split("&")) {
      if (part.startsWith("sig=")) {
        return URLDecoder.decode(part.substring(4), StandardCharsets.UTF_8);
      }
    }
    throw new AssertionError("no sig in SAS");
  }

  // ------------------------------------------------------------------------------------------ errors

  @Test
  void missingContainerIsNamedWithItsEndpoint() throws IOException {
    String container = AzureTestStores.newContainerName(); // never created
    try (BlobStore store = AzureTestStores.credentials(AzureBlobStore.builder()).container(container).prefix("p").build()) {
      List<Executable> operations = List.of(
          () -> store.read("x"),
          () -> store.read("x", 0, 10),
          () -> store.length("x"),
          () -> store.list(""),
          () -> store.write("x", new ByteArrayInputStream(new byte[10]), 10),
          () -> store.write("big", new ByteArrayInputStream(new byte[2 << 20]), 2 << 20));
      for (Executable op : operations) {
        BlobStoreException e = assertThrows(BlobStoreException.class, op);
        assertFalse(e instanceof BlobNotFoundException, "a missing container is not a missing blob: " + e.getMessage());
        assertFalse(e.isRetryable(), e.getMessage());
        String m = e.getMessage();
        assertTrue(m.contains("container '" + container + "' does not exist"), m);
        assertTrue(m.contains("azblob://" + container), m);
        assertTrue(m.contains(AzureTestStores.endpoint()), m);
        assertTrue(m.contains("create the container"), m);
        assertNoSecret(everything(store, e), AzureTestStores.key());
      }
    }
  }

  @Test
  void wrongAccountKeyIsReportedAsACredentialProblem() throws IOException {
    String container = AzureTestStores.newContainer();
    byte[] wrong = Base64.getDecoder().decode(AzureTestStores.key());
    wrong[0] ^= 1;
    String wrongKey = Base64.getEncoder().encodeToString(wrong);
    try (BlobStore store = AzureBlobStore.builder()
        .container(container).endpoint(AzureTestStores.endpoint()).account(AzureTestStores.account())
        .accountKey(wrongKey).build()) {
      for (Executable op : List.<Executable>of(
          () -> store.read("x"),
          () -> store.length("x"),
          () -> store.list(""),
          () -> store.write("x", new ByteArrayInputStream(new byte[10]), 10))) {
        BlobStoreException e = assertThrows(BlobStoreException.class, op);
        assertFalse(e instanceof BlobNotFoundException, e.getMessage());
        String m = e.getMessage();
        assertTrue(m.contains("access denied") || m.contains("authentication failed"), m);
        assertFalse(e.isRetryable(), "a rejected credential is not worth retrying: " + m);
        assertTrue(m.contains("account_key"), m);
        assertTrue(m.contains("container '" + container + "'"), m);
        assertTrue(m.contains(AzureTestStores.endpoint()), m);
        assertNoSecret(everything(store, e), wrongKey, AzureTestStores.key());
      }
    }
  }

  @Test
  void unreachableEndpointSaysItCannotConnect() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    } // closed again: nothing listens there now
    String endpoint = "http://127.0.0.1:" + port + "/" + AzureTestStores.account();
    try (BlobStore store = AzureBlobStore.builder()
        .container("unreachable").endpoint(endpoint).account(AzureTestStores.account()).accountKey(AzureTestStores.key())
        .connectTimeout(Duration.ofSeconds(2)).readTimeout(Duration.ofSeconds(5)).build()) {
      for (Executable op : List.<Executable>of(
          () -> store.read("x", 0, 10), () -> store.list(""), () -> store.write("x", new ByteArrayInputStream(new byte[1]), 1))) {
        BlobStoreException e = assertThrows(BlobStoreException.class, op);
        String m = e.getMessage();
        assertTrue(m.contains("cannot connect to endpoint " + endpoint), m);
        assertTrue(e.isRetryable(), "a refused connection may pass next time: " + m);
        assertTrue(m.contains("azblob://unreachable"), m);
        assertTrue(m.contains("'endpoint'"), "says what to check: " + m);
        assertNoSecret(everything(store, e), AzureTestStores.key());
      }
    }
  }

  @Test
  void aMissingBlobIsNotFoundAndNotRetryable() throws IOException {
    try (BlobStore store = AzureTestStores.newStore()) {
      for (Executable op : List.<Executable>of(
          () -> store.read("missing"), () -> store.read("missing", 0, 10), () -> store.read("missing", 5, 0),
          () -> store.length("missing"))) {
        BlobNotFoundException e = assertThrows(BlobNotFoundException.class, op);
        assertFalse(e.isRetryable(), e.getMessage());
        assertEquals("missing", e.blobName());
      }
      assertFalse(store.exists("missing"));
    }
  }

  @Test
  void verifierPassesAndFailsNamingTheStep() throws IOException {
    try (BlobStore store = AzureTestStores.newStore()) {
      BlobStoreVerifier.verify(store, "");
      assertEquals(List.of(), store.list(""));
    }
    String container = AzureTestStores.newContainerName();
    try (BlobStore store = AzureTestStores.credentials(AzureBlobStore.builder()).container(container).build()) {
      BlobStoreVerifier.VerificationException e =
          assertThrows(BlobStoreVerifier.VerificationException.class, () -> BlobStoreVerifier.verify(store, ""));
      assertEquals(BlobStoreVerifier.Step.WRITE, e.step());
      assertTrue(e.getMessage().contains("WRITE"), e.getMessage());
      assertTrue(e.getMessage().contains("container '" + container + "' does not exist"), e.getMessage());
    }
  }

  // ------------------------------------------------------------------------------------------ writes and reads

  @Test
  void aSourceFailingMidwayThroughABlockUploadLeavesNoBlob() throws IOException {
    try (AzureBlobStore store = AzureTestStores.newStoreBuilder().partSize(64 << 10).singleUploadThreshold(64 << 10).build()) {
      byte[] old = randomBytes(300_000);
      store.write("blocks/existing", new ByteArrayInputStream(old), old.length);
      for (String name : new String[] {"blocks/new", "blocks/existing"}) {
        InputStream failing = new FailingStream(5 * (64 << 10) + 123); // after five staged blocks
        BlobStoreException e = assertThrows(BlobStoreException.class, () -> store.write(name, failing, 1 << 20));
        assertEquals(name, e.blobName());
        assertTrue(e.getMessage().contains("source broke"), e.getMessage());
      }
      assertFalse(store.exists("blocks/new"));
      assertThrows(BlobNotFoundException.class, () -> store.read("blocks/new"));
      assertArrayEquals(old, store.read("blocks/existing").readAllBytes(), "a failed overwrite keeps the old blob");
      assertEquals(List.of(new BlobMetadata("blocks/existing", old.length)), store.list("blocks/"));

      // A source that ends early on the block path.
      BlobStoreException e = assertThrows(
          BlobStoreException.class, () -> store.write("blocks/short", new ByteArrayInputStream(new byte[200_000]), 300_000));
      assertTrue(e.getMessage().contains("200000 of the 300000"), e.getMessage());
      assertFalse(store.exists("blocks/short"));

      // The staged blocks exist only as uncommitted blocks, which listings of committed blobs never show.
      BlobContainerClient raw = AzureTestStores.serviceClient().getBlobContainerClient(store.container());
      long committed = raw.listBlobs(new ListBlobsOptions().setPrefix(store.prefix() + "blocks/"), null).stream().count();
      assertEquals(1, committed);
      long withUncommitted = raw.listBlobs(
              new ListBlobsOptions().setPrefix(store.prefix() + "blocks/")
                  .setDetails(new BlobListDetails().setRetrieveUncommittedBlobs(true)),
              null)
          .stream().count();
      assertTrue(withUncommitted >= 1, "uncommitted: " + withUncommitted);
    }
  }

  @Test
  void blockUploadsRoundTripAtBlockBoundaries() throws IOException {
    try (AzureBlobStore store = AzureTestStores.newStoreBuilder().partSize(64 << 10).singleUploadThreshold(100_000).build()) {
      for (int size : new int[] {100_000, 100_001, 128 << 10, (128 << 10) + 1, 3 * (64 << 10) - 1}) {
        byte[] data = randomBytes(size);
        store.write("b/" + size, new ByteArrayInputStream(data), size);
        assertEquals(size, store.length("b/" + size));
        assertArrayEquals(data, store.read("b/" + size).readAllBytes());
      }
    }
  }

  @Test
  void readsSpanningManyChunksAndSkips() throws IOException {
    try (AzureBlobStore store = AzureTestStores.newStoreBuilder().downloadChunkSize(1000).build()) {
      byte[] data = randomBytes(10_500);
      store.write("c", new ByteArrayInputStream(data), data.length);
      assertArrayEquals(data, store.read("c").readAllBytes());
      assertArrayEquals(Arrays.copyOfRange(data, 999, 7001), store.read("c", 999, 6002).readAllBytes());
      try (InputStream in = store.read("c", 100, 5000)) {
        assertEquals(data[100] & 0xFF, in.read());
        assertEquals(2500, in.skip(2500));
        assertEquals(data[2601] & 0xFF, in.read());
        assertEquals(2498, in.skip(10_000));
        assertEquals(-1, in.read());
      }
    }
  }

  @Test
  void rangePastTheEndNamesRangeAndLength() throws IOException {
    try (BlobStore store = AzureTestStores.newStore()) {
      store.write("r", new ByteArrayInputStream(new byte[1000]), 1000);
      for (long[] range : new long[][] {{990, 20}, {1000, 1}, {5000, 10}, {1001, 0}}) {
        BlobStoreException e = assertThrows(BlobStoreException.class, () -> store.read("r", range[0], range[1]));
        assertFalse(e instanceof BlobNotFoundException);
        assertFalse(e.isRetryable(), "a range past the end stays past the end: " + e.getMessage());
        assertTrue(e.getMessage().contains(BlobStoreException.range(range[0], range[1])), e.getMessage());
        assertTrue(e.getMessage().contains("length 1000"), e.getMessage());
      }
      assertArrayEquals(new byte[0], store.read("r", 1000, 0).readAllBytes());
    }
  }

  @Test
  void aBlobReplacedDuringAReadFailsTheRead() throws IOException {
    try (AzureBlobStore store = AzureTestStores.newStoreBuilder().downloadChunkSize(1000).build()) {
      store.write("v", new ByteArrayInputStream(randomBytes(5000)), 5000);
      try (InputStream in = store.read("v")) {
        in.readNBytes(1000); // the first chunk
        store.write("v", new ByteArrayInputStream(randomBytes(5000)), 5000);
        BlobStoreException e = assertThrows(BlobStoreException.class, () -> in.readNBytes(1000));
        assertTrue(e.getMessage().contains("replaced while it was being read"), e.getMessage());
        assertFalse(e.isRetryable(), "412: the ETag pin failed, asking again fails again: " + e.getMessage());
      }
    }
  }

  @Test
  void listingFollowsPagesAndStaysBelowThePrefix() throws IOException {
    String container = AzureTestStores.newContainer();
    try (AzureBlobStore a = AzureTestStores.credentials(AzureBlobStore.builder()).container(container).prefix("one").listPageSize(4).build();
        AzureBlobStore b = AzureTestStores.credentials(AzureBlobStore.builder()).container(container).prefix("one-more").build()) {
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < 17; i++) {
        String name = "n/" + (char) ('a' + i);
        a.write(name, new ByteArrayInputStream(new byte[i]), i);
        expected.add(name);
      }
      b.write("n/zz", new ByteArrayInputStream(new byte[1]), 1);
      long before = a.listPagesFetched();
      List<BlobMetadata> listed = a.list("");
      assertEquals(expected, listed.stream().map(BlobMetadata::name).toList());
      assertEquals(5, a.listPagesFetched() - before, "17 blobs in pages of 4");
      assertEquals(List.of(new BlobMetadata("n/zz", 1)), b.list(""));
      assertEquals(List.of(new BlobMetadata("n/c", 2)), a.list("n/c"));
    }
  }

  @Test
  void closedStoreRefusesWork() throws IOException {
    BlobStore store = AzureTestStores.newStore();
    store.close();
    assertThrows(IllegalStateException.class, () -> store.list(""));
  }

  @Test
  void aStreamOfAClosedStoreFailsClearly() throws IOException {
    AzureBlobStore store = AzureTestStores.newStoreBuilder().downloadChunkSize(1000).build();
    byte[] data = randomBytes(5000);
    store.write("s", new ByteArrayInputStream(data), data.length);
    try (InputStream in = store.read("s")) {
      assertArrayEquals(Arrays.copyOf(data, 1000), in.readNBytes(1000));
      store.close();
      // Nothing more is fetched on a closed store's connections (which would open a connection nobody releases).
      BlobStoreException e = assertThrows(BlobStoreException.class, () -> in.readNBytes(1000));
      assertTrue(e.getMessage().contains("the store was closed"), e.getMessage());
      assertFalse(e.isRetryable(), e.getMessage());
    }
  }

  /** Serves bytes until {@code failAt}, then throws. */
  private static final class FailingStream extends InputStream {
    private final long failAt;
    private long served;

    FailingStream(long failAt) {
      this.failAt = failAt;
    }

    @Override
    public int read() throws IOException {
      if (served++ >= failAt) {
        throw new IOException("source broke");
      }
      return 42;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (served >= failAt) {
        throw new IOException("source broke");
      }
      int n = (int) Math.min(len, failAt - served);
      Arrays.fill(b, off, off + n, (byte) 42);
      served += n;
      return n;
    }
  }
}
