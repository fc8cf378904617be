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
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.FilterBlobStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.utils.SdkAutoCloseable;

/**
 * The application's own SDK objects and credentials, on the local MinIO: a store on the application's
 * {@link S3Client} (used, never closed; the settings that would configure a client refused next to it), an
 * {@link AwsCredentialsProvider} for the client the store builds, temporary credentials ({@code session_token}, from
 * MinIO's STS), and a named {@code profile} of a shared credentials file.
 */
class S3BringYourOwnClientTest {
  private final Random random = new Random();

  private byte[] randomBytes(int n) {
    byte[] data = new byte[n];
    random.nextBytes(data);
    return data;
  }

  private static String stackTrace(Throwable t) {
    StringWriter sw = new StringWriter();
    t.printStackTrace(new PrintWriter(sw));
    return sw.toString();
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String testPrefix(String what) {
    return what + "-" + UUID.randomUUID();
  }

  /** Writes (one PUT and a multipart upload), reads whole and by range, lists and deletes. */
  private void roundTrip(BlobStore store) throws IOException {
    byte[] small = randomBytes(1000);
    byte[] large = randomBytes((int) S3TestStores.PART_SIZE + 1234);
    store.write("a/small", new ByteArrayInputStream(small), small.length);
    store.write("a/large", new ByteArrayInputStream(large), large.length);
    try (InputStream in = store.read("a/small")) {
      assertArrayEquals(small, in.readAllBytes());
    }
    try (InputStream in = store.read("a/large", S3TestStores.PART_SIZE - 10, 100)) {
      assertArrayEquals(Arrays.copyOfRange(large, (int) S3TestStores.PART_SIZE - 10, (int) S3TestStores.PART_SIZE + 90),
          in.readAllBytes());
    }
    assertEquals(List.of(new BlobMetadata("a/large", large.length), new BlobMetadata("a/small", 1000)), store.list("a/"));
    assertEquals(small.length, store.length("a/small"));
    store.delete("a/small");
    assertFalse(store.exists("a/small"));
    assertThrows(BlobNotFoundException.class, () -> store.read("a/small", 0, 1));
    store.deleteAll(List.of("a/large", "a/small"));
    assertEquals(List.of(), store.list(""));
  }

  // ------------------------------------------------------------------------------------ the application's client

  @Test
  void aStoreOnTheApplicationsClientWorksAndLeavesTheClientOpen() throws IOException {
    S3TestStores.ensureBucket();
    try (S3Client client = S3TestStores.newClient()) {
      String prefix = testPrefix("own-client");
      S3BlobStore store = S3BlobStore.builder().bucket(S3TestStores.BUCKET).prefix(prefix).client(client)
          .singleUploadThreshold(S3TestStores.SINGLE_UPLOAD_THRESHOLD).partSize(S3TestStores.PART_SIZE)
          .listPageSize(1).build();
      assertEquals("us-east-1", store.region());
      assertEquals(S3TestStores.endpoint(), store.endpoint());
      assertTrue(store.describe().contains("s3://" + S3TestStores.BUCKET + "/" + prefix + "/"), store.describe());
      assertTrue(store.describe().contains(S3TestStores.endpoint()), store.describe());
      assertFalse(store.toString().contains(S3TestStores.secretKey()), store.toString());
      roundTrip(store);
      store.write("kept", new ByteArrayInputStream(new byte[7]), 7);

      store.close();
      assertThrows(IllegalStateException.class, () -> store.length("kept"));
      // The store did not close the client: the application goes on using it.
      assertEquals(7L, client.headObject(b -> b.bucket(S3TestStores.BUCKET).key(prefix + "/kept")).contentLength());
      client.deleteObject(b -> b.bucket(S3TestStores.BUCKET).key(prefix + "/kept"));
    }
  }

  @Test
  void errorsOnTheApplicationsClientPointAtThatClient() throws IOException {
    String bucket = "permafrost-missing-" + UUID.randomUUID();
    try (S3Client client = S3TestStores.newClient();
        S3BlobStore store = S3BlobStore.builder().bucket(bucket).client(client).build()) {
      BlobStoreException e = assertThrows(BlobStoreException.class, () -> store.read("x", 0, 10));
      assertTrue(e.getMessage().contains("bucket '" + bucket + "' does not exist"), e.getMessage());
      assertTrue(e.getMessage().contains("S3Client given to the builder"), e.getMessage());
      assertFalse(e.isRetryable(), e.getMessage());
    }
  }

  @Test
  void settingsThatConfigureAClientAreRefusedNextToOne() throws IOException {
    try (S3Client client = S3TestStores.newClient()) {
      for (String name : List.of("region", "endpoint", "path_style_access", "access_key", "secret_key", "session_token",
          "profile", "connect_timeout", "read_timeout", "max_connections")) {
        String value = name.endsWith("timeout") ? "5s" : name.equals("max_connections") ? "5"
            : name.equals("path_style_access") ? "true" : name.equals("endpoint") ? "http://127.0.0.1:1"
            : "value-of-" + name;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> S3BlobStore.builder().bucket("b").client(client).setting(name, value).build(), name);
        assertTrue(e.getMessage().contains(name), e.getMessage());
        assertTrue(e.getMessage().contains("S3Client"), e.getMessage());
        assertFalse(e.getMessage().contains("value-of-"), "a setting's value must not be printed: " + e.getMessage());
      }
      // The typed methods too, and a credentials provider, which would be a second source of credentials.
      assertThrows(IllegalArgumentException.class,
          () -> S3BlobStore.builder().bucket("b").client(client).endpoint("http://127.0.0.1:1").build());
      assertThrows(IllegalArgumentException.class,
          () -> S3BlobStore.builder().bucket("b").credentials("a", "b").client(client).build());
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> S3BlobStore.builder().bucket("b").client(client)
              .credentialsProvider(() -> AwsBasicCredentials.create("a", "b")).build());
      assertTrue(e.getMessage().contains("AwsCredentialsProvider"), e.getMessage());
      // What the store does with the client is still set by its settings.
      try (S3BlobStore store = S3BlobStore.builder().bucket("b").client(client).listPageSize(3).partSize(6L << 20)
          .singleUploadThreshold(1 << 20).build()) {
        assertEquals(3, store.listPageSize());
        assertEquals(6L << 20, store.partSize());
        assertEquals(1L << 20, store.singleUploadThreshold());
      }
    }
  }

  // ------------------------------------------------------------------------------- a credentials provider

  /** A provider that counts its uses and records whether it was closed. */
  private static final class CountingProvider implements AwsCredentialsProvider, SdkAutoCloseable {
    private final AwsCredentials credentials;
    final AtomicInteger resolved = new AtomicInteger();
    final AtomicBoolean closed = new AtomicBoolean();

    CountingProvider(AwsCredentials credentials) {
      this.credentials = credentials;
    }

    @Override
    public AwsCredentials resolveCredentials() {
      resolved.incrementAndGet();
      return credentials;
    }

    @Override
    public void close() {
      closed.set(true);
    }
  }

  @Test
  void aCredentialsProviderIsUsedAndNotClosed() throws IOException {
    S3TestStores.ensureBucket();
    CountingProvider provider =
        new CountingProvider(AwsBasicCredentials.create(S3TestStores.accessKey(), S3TestStores.secretKey()));
    S3BlobStore store = S3BlobStore.builder().bucket(S3TestStores.BUCKET).prefix(testPrefix("provider"))
        .endpoint(S3TestStores.endpoint()).credentialsProvider(provider).build();
    try {
      roundTrip(store);
      assertTrue(provider.resolved.get() > 0, "the provider was never asked for credentials");
    } finally {
      store.close();
    }
    assertFalse(provider.closed.get(), "the store closed the application's credentials provider");

    String wrongSecret = "wrong-" + UUID.randomUUID();
    CountingProvider wrong = new CountingProvider(AwsBasicCredentials.create(S3TestStores.accessKey(), wrongSecret));
    try (S3BlobStore wrongStore = S3BlobStore.builder().bucket(S3TestStores.BUCKET).prefix("p")
        .endpoint(S3TestStores.endpoint()).credentialsProvider(wrong).build()) {
      BlobStoreException e = assertThrows(BlobStoreException.class,
          () -> wrongStore.write("a", new ByteArrayInputStream(new byte[3]), 3));
      assertTrue(e.getMessage().contains("secret key is wrong"), e.getMessage());
      assertTrue(e.getMessage().contains("AwsCredentialsProvider given to the builder"), e.getMessage());
      assertFalse(e.isRetryable(), e.getMessage());
      assertFalse(stackTrace(e).contains(wrongSecret), stackTrace(e));
    }
    assertFalse(wrong.closed.get());

    // A provider and credentials settings would be two sources of credentials.
    for (String name : List.of("access_key", "profile")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> S3BlobStore.builder().bucket("b").endpoint("http://127.0.0.1:1").credentialsProvider(provider)
              .setting(name, "x").build());
      assertTrue(e.getMessage().contains("AwsCredentialsProvider") && e.getMessage().contains(name), e.getMessage());
    }
  }

  // ---------------------------------------------------------------------------------- temporary credentials

  /** Temporary credentials from MinIO's STS (AssumeRole with the root keys), valid for 15 minutes. */
  static AwsSessionCredentials temporaryCredentials() throws IOException, InterruptedException {
    URI uri = URI.create(S3TestStores.endpoint() + "/");
    byte[] body = "Action=AssumeRole&Version=2011-06-15&DurationSeconds=900".getBytes(StandardCharsets.UTF_8);
    SdkHttpRequest request = SdkHttpRequest.builder().method(SdkHttpMethod.POST).uri(uri)
        .putHeader("Content-Type", "application/x-www-form-urlencoded").build();
    SignedRequest signed = AwsV4HttpSigner.create().sign(r -> r
        .identity(AwsCredentialsIdentity.create(S3TestStores.accessKey(), S3TestStores.secretKey()))
        .request(request)
        .payload(ContentStreamProvider.fromByteArray(body))
        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "sts")
        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1"));
    HttpRequest.Builder http = HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofByteArray(body));
    signed.request().headers().forEach((name, values) -> {
      if (!name.equalsIgnoreCase("Host") && !name.equalsIgnoreCase("Content-Length")) {
        values.forEach(value -> http.header(name, value));
      }
    });
    String response;
    try (HttpClient httpClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build()) {
      HttpResponse<String> answer = httpClient.send(http.build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, answer.statusCode(), "MinIO's AssumeRole: " + answer.body());
      response = answer.body();
    }
    return AwsSessionCredentials.create(
        xmlElement(response, "AccessKeyId"), xmlElement(response, "SecretAccessKey"), xmlElement(response, "SessionToken"));
  }

  private static String xmlElement(String xml, String name) {
    Matcher m = Pattern.compile("<" + name + ">([^<]+)</" + name + ">").matcher(xml);
    assertTrue(m.find(), "no " + name + " in the AssumeRole response");
    return m.group(1).trim();
  }

  @Test
  void aSessionTokenReachesTheRequests() throws Exception {
    S3TestStores.ensureBucket();
    AwsSessionCredentials temporary = temporaryCredentials();
    String prefix = testPrefix("session");
    try (S3BlobStore store = S3BlobStore.builder().bucket(S3TestStores.BUCKET).prefix(prefix)
        .endpoint(S3TestStores.endpoint())
        .credentials(temporary.accessKeyId(), temporary.secretAccessKey(), temporary.sessionToken()).build()) {
      roundTrip(store);
      assertFalse(store.toString().contains(temporary.sessionToken()), store.toString());
      assertFalse(store.describe().contains(temporary.sessionToken()), store.describe());
    }
    URI uri = URI.create("s3://" + S3TestStores.BUCKET + "/" + prefix + "?endpoint=" + enc(S3TestStores.endpoint())
        + "&access_key=" + enc(temporary.accessKeyId()) + "&secret_key=" + enc(temporary.secretAccessKey())
        + "&session_token=" + enc(temporary.sessionToken()));
    try (BlobStore byUri = BlobStores.open(uri)) {
      byUri.write("x", new ByteArrayInputStream(new byte[5]), 5);
      assertEquals(5, byUri.length("x"));
      byUri.delete("x");
      assertFalse(byUri.toString().contains(temporary.sessionToken()), byUri.toString());
    }

    // Without its token, or with another token, the temporary key is refused: the token is what makes it valid.
    String wrongToken = temporary.sessionToken().substring(0, temporary.sessionToken().length() - 8) + "AAAAAAAA";
    for (S3BlobStore.Builder builder : List.of(
        S3BlobStore.builder().credentials(temporary.accessKeyId(), temporary.secretAccessKey()),
        S3BlobStore.builder().credentials(temporary.accessKeyId(), temporary.secretAccessKey(), wrongToken))) {
      try (S3BlobStore store = builder.bucket(S3TestStores.BUCKET).prefix(prefix).endpoint(S3TestStores.endpoint()).build()) {
        BlobStoreException e = assertThrows(BlobStoreException.class,
            () -> store.write("y", new ByteArrayInputStream(new byte[5]), 5));
        assertTrue(e.getMessage().contains("session token is invalid"), e.getMessage());
        assertTrue(e.getMessage().contains("'session_token'"), e.getMessage());
        assertFalse(e instanceof BlobNotFoundException, e.getMessage());
        assertFalse(e.isRetryable(), e.getMessage());
        assertFalse(stackTrace(e).contains(temporary.sessionToken()), "the session token leaks: " + stackTrace(e));
        assertFalse(stackTrace(e).contains(wrongToken), "the session token leaks: " + stackTrace(e));
        assertFalse(stackTrace(e).contains(temporary.secretAccessKey()), "the secret key leaks: " + stackTrace(e));
      }
    }
  }

  // ---------------------------------------------------------------------------------------------- a profile

  /**
   * Runs {@code action} with the SDK reading the given shared credentials and config files (the
   * {@code aws.sharedCredentialsFile} and {@code aws.configFile} system properties, which it reads when a store is
   * built), then restores the properties.
   */
  private static <T> T withProfileFiles(Path credentials, Path config, IoSupplier<T> action) throws IOException {
    String oldCredentials = System.getProperty("aws.sharedCredentialsFile");
    String oldConfig = System.getProperty("aws.configFile");
    System.setProperty("aws.sharedCredentialsFile", credentials.toString());
    System.setProperty("aws.configFile", config.toString());
    try {
      return action.get();
    } finally {
      restore("aws.sharedCredentialsFile", oldCredentials);
      restore("aws.configFile", oldConfig);
    }
  }

  private interface IoSupplier<T> {
    T get() throws IOException;
  }

  private static void restore(String property, String value) {
    if (value == null) {
      System.clearProperty(property);
    } else {
      System.setProperty(property, value);
    }
  }

  @Test
  void aProfileGivesTheCredentials(@TempDir Path dir) throws Exception {
    S3TestStores.ensureBucket();
    AwsSessionCredentials temporary = temporaryCredentials();
    Path credentials = Files.writeString(dir.resolve("credentials"),
        "[permafrost-minio]\n"
            + "aws_access_key_id = " + S3TestStores.accessKey() + "\n"
            + "aws_secret_access_key = " + S3TestStores.secretKey() + "\n"
            + "\n[permafrost-minio-session]\n"
            + "aws_access_key_id = " + temporary.accessKeyId() + "\n"
            + "aws_secret_access_key = " + temporary.secretAccessKey() + "\n"
            + "aws_session_token = " + temporary.sessionToken() + "\n"
            + "\n[permafrost-wrong]\n"
            + "aws_access_key_id = " + S3TestStores.accessKey() + "\n"
            + "aws_secret_access_key = not-the-secret\n");
    Path config = Files.writeString(dir.resolve("config"), "[profile permafrost-with-region]\nregion = eu-north-1\n");

    for (String profile : List.of("permafrost-minio", "permafrost-minio-session")) {
      String prefix = testPrefix("profile");
      S3BlobStore store = withProfileFiles(credentials, config, () -> S3BlobStore.builder().bucket(S3TestStores.BUCKET)
          .prefix(prefix).endpoint(S3TestStores.endpoint()).profile(profile).build());
      try {
        roundTrip(store); // the files are read when the store is built: the properties are restored by now
        assertFalse(store.toString().contains(profile), store.toString());
      } finally {
        store.close();
      }
    }
    // By URI, too.
    BlobStore byUri = withProfileFiles(credentials, config, () -> BlobStores.open(URI.create("s3://" + S3TestStores.BUCKET
        + "/" + testPrefix("profile-uri") + "?endpoint=" + enc(S3TestStores.endpoint()) + "&profile=permafrost-minio")));
    try (byUri) {
      assertInstanceOf(S3BlobStore.class, FilterBlobStore.unwrap(byUri));
      assertEquals(List.of(), byUri.list(""));
    }

    // A wrong secret in the profile: the message points at the profile, without naming it.
    try (S3BlobStore wrong = withProfileFiles(credentials, config, () -> S3BlobStore.builder().bucket(S3TestStores.BUCKET)
        .prefix("p").endpoint(S3TestStores.endpoint()).profile("permafrost-wrong").build())) {
      BlobStoreException e = assertThrows(BlobStoreException.class,
          () -> wrong.write("a", new ByteArrayInputStream(new byte[3]), 3));
      assertTrue(e.getMessage().contains("secret key is wrong"), e.getMessage());
      assertTrue(e.getMessage().contains("'profile' setting"), e.getMessage());
      assertFalse(e.getMessage().contains("permafrost-wrong"), e.getMessage());
      assertFalse(stackTrace(e).contains("not-the-secret"), stackTrace(e));
    }

    // A profile without credentials: the requests fail, saying so, without naming it.
    try (S3BlobStore none = withProfileFiles(credentials, config, () -> S3BlobStore.builder().bucket(S3TestStores.BUCKET)
        .prefix("p").endpoint(S3TestStores.endpoint()).profile("permafrost-with-region").build())) {
      BlobStoreException e = assertThrows(BlobStoreException.class, () -> none.length("a"));
      assertTrue(e.getMessage().contains("no AWS credentials found"), e.getMessage());
      assertTrue(e.getMessage().contains("'profile' setting"), e.getMessage());
      assertFalse(e.getMessage().contains("permafrost-with-region"), e.getMessage());
      assertFalse(e.isRetryable(), e.getMessage());
    }

    // A profile in neither file fails at build, without printing its name.
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
        () -> withProfileFiles(credentials, config, () -> S3BlobStore.builder().bucket("b")
            .endpoint(S3TestStores.endpoint()).profile("permafrost-no-such-profile").build()));
    assertTrue(missing.getMessage().contains("'profile'"), missing.getMessage());
    assertFalse(missing.getMessage().contains("permafrost-no-such-profile"), missing.getMessage());

    // Without an endpoint nor a region setting, the region is the profile's (unless the environment names one).
    String environmentRegion = System.getProperty("aws.region", System.getenv("AWS_REGION"));
    try (S3BlobStore aws = withProfileFiles(credentials, config,
        () -> S3BlobStore.builder().bucket("b").profile("permafrost-with-region").build())) {
      assertEquals(environmentRegion != null ? environmentRegion : "eu-north-1", aws.region());
      assertEquals(null, aws.endpoint());
    }
  }
}
