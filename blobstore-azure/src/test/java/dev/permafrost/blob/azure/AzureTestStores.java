/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.azure;

import static org.junit.jupiter.api.Assertions.fail;

import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import dev.permafrost.blob.BlobStore;
import java.util.UUID;

/**
 * Stores on the Azurite emulator that scripts/servers/azurite.sh starts, for this module's tests and for
 * end-to-end tests elsewhere. Reads PERMAFROST_AZURE_ENDPOINT, PERMAFROST_AZURE_ACCOUNT and PERMAFROST_AZURE_KEY;
 * when they are missing the test fails (it is never skipped) and says how to start the server.
 */
public final class AzureTestStores {
  public static final String ENDPOINT_ENV = "PERMAFROST_AZURE_ENDPOINT";
  public static final String ACCOUNT_ENV = "PERMAFROST_AZURE_ACCOUNT";
  public static final String KEY_ENV = "PERMAFROST_AZURE_KEY";

  private AzureTestStores() {}

  /** A new, empty store: a fresh container with a fresh prefix, and small blocks, chunks and list pages. */
  public static BlobStore newStore() {
    return newStoreBuilder().build();
  }

  /**
   * A builder for a store in a fresh (created) container below a fresh prefix, with the test settings: blocks of
   * 256 KiB above a 512 KiB single-upload threshold, 32 KiB download chunks and list pages of 7, so that the block
   * upload, multi-chunk read and paging paths all run on small data. Callers may override any setting.
   */
  public static AzureBlobStore.Builder newStoreBuilder() {
    String container = newContainer();
    return credentials(AzureBlobStore.builder())
        .container(container)
        .prefix("tests/" + UUID.randomUUID().toString().substring(0, 8))
        .partSize(256 << 10)
        .singleUploadThreshold(512 << 10)
        .downloadChunkSize(32 << 10)
        .listPageSize(7);
  }

  /** Sets the emulator's endpoint, account and key on {@code builder}. */
  public static AzureBlobStore.Builder credentials(AzureBlobStore.Builder builder) {
    return builder.endpoint(endpoint()).account(account()).accountKey(key());
  }

  /** Creates a container with a fresh name and returns the name. */
  public static String newContainer() {
    String name = newContainerName();
    serviceClient().createBlobContainer(name);
    return name;
  }

  /** A fresh container name, not created. */
  public static String newContainerName() {
    return "pf-" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
  }

  /** A plain SDK client on the emulator, for setting up what the store itself does not (containers, SAS). */
  public static BlobServiceClient serviceClient() {
    return serviceClientBuilder().buildClient();
  }

  /** A builder of SDK clients on the emulator, with its well-known account and key. */
  public static BlobServiceClientBuilder serviceClientBuilder() {
    return new BlobServiceClientBuilder()
        .endpoint(endpoint())
        .credential(new StorageSharedKeyCredential(account(), key()));
  }

  public static String endpoint() {
    return env(ENDPOINT_ENV);
  }

  public static String account() {
    return env(ACCOUNT_ENV);
  }

  public static String key() {
    return env(KEY_ENV);
  }

  private static String env(String name) {
    String value = System.getenv(name);
    if (value == null || value.isBlank()) {
      fail(name + " is not set: the Azure tests need the Azurite emulator. Start the servers with"
          + " 'scripts/test-servers.sh start' and 'eval \"$(scripts/test-servers.sh env)\"', or run scripts/test");
    }
    return value;
  }
}
