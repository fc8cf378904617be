package example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.google.cloud.NoCredentials;
import com.google.cloud.storage.BucketInfo;
import com.google.cloud.storage.StorageOptions;
import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** One blob through each backend, found by URI scheme: the artifacts resolved through the BOM alone work. */
class RoundTripTest {
  private static String env(String name) {
    String value = System.getenv(name);
    assertNotNull(value, name + " is not set: run through scripts/test, which starts the emulators");
    return value;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static void roundTrip(URI uri) throws Exception {
    byte[] bytes = ("hello from a project that imports permafrost-bom, " + uri.getScheme()).getBytes(StandardCharsets.UTF_8);
    String name = "bom-consumer/" + UUID.randomUUID();
    try (BlobStore store = BlobStores.open(uri)) {
      store.write(name, new ByteArrayInputStream(bytes), bytes.length);
      try (InputStream in = store.read(name, 6, 4)) {
        assertArrayEquals("from".getBytes(StandardCharsets.UTF_8), in.readAllBytes(), uri.getScheme());
      }
      List<BlobMetadata> listed = store.list("bom-consumer/");
      assertEquals(bytes.length, listed.stream().filter(b -> b.name().equals(name)).findFirst().orElseThrow().length());
      store.delete(name);
      assertFalse(store.exists(name));
    }
  }

  /** A bucket or container of its own on each emulator (the store itself never creates one). */
  private static final String BUCKET = "bom-consumer-" + UUID.randomUUID().toString().substring(0, 8);

  @Test
  void s3() throws Exception {
    try (var admin = S3Client.builder()
        .endpointOverride(URI.create(env("PERMAFROST_S3_ENDPOINT"))).forcePathStyle(true)
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(env("PERMAFROST_S3_ACCESS_KEY"),
                env("PERMAFROST_S3_SECRET_KEY"))))
        .build()) {
      admin.createBucket(b -> b.bucket(BUCKET));
    }
    roundTrip(URI.create("s3://" + BUCKET + "/it?endpoint=" + enc(env("PERMAFROST_S3_ENDPOINT")) + "&access_key="
        + enc(env("PERMAFROST_S3_ACCESS_KEY")) + "&secret_key=" + enc(env("PERMAFROST_S3_SECRET_KEY"))));
  }

  @Test
  void gcs() throws Exception {
    StorageOptions.newBuilder().setHost(env("PERMAFROST_GCS_ENDPOINT"))
        .setProjectId(env("PERMAFROST_GCS_PROJECT_ID")).setCredentials(NoCredentials.getInstance())
        .build().getService().create(BucketInfo.of(BUCKET));
    roundTrip(URI.create("gs://" + BUCKET + "/it?endpoint=" + enc(env("PERMAFROST_GCS_ENDPOINT")) + "&credentials=none"
        + "&project_id=" + enc(env("PERMAFROST_GCS_PROJECT_ID"))));
  }

  @Test
  void azure() throws Exception {
    new BlobServiceClientBuilder().endpoint(env("PERMAFROST_AZURE_ENDPOINT"))
        .credential(new StorageSharedKeyCredential(env("PERMAFROST_AZURE_ACCOUNT"),
            env("PERMAFROST_AZURE_KEY")))
        .buildClient().createBlobContainerIfNotExists(BUCKET);
    roundTrip(URI.create("azblob://" + BUCKET + "/it?endpoint=" + enc(env("PERMAFROST_AZURE_ENDPOINT")) + "&account="
        + enc(env("PERMAFROST_AZURE_ACCOUNT")) + "&account_key=" + enc(env("PERMAFROST_AZURE_KEY"))));
  }
}
