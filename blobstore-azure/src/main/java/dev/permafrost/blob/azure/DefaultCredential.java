/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.azure;

import com.azure.core.credential.TokenCredential;
import com.azure.identity.DefaultAzureCredentialBuilder;

/**
 * The SDK's default credential chain ({@code DefaultAzureCredential}: environment, workload identity, managed
 * identity, Azure CLI, ...), from the optional {@code com.azure:azure-identity} dependency. Kept in its own class
 * so that the store loads without azure-identity when it is given a key, SAS token or connection string.
 */
final class DefaultCredential {
  private static final String BUILDER = "com.azure.identity.DefaultAzureCredentialBuilder";

  private DefaultCredential() {}

  static TokenCredential create() {
    try {
      Class.forName(BUILDER, false, DefaultCredential.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalArgumentException(
          "Azure blob store: no credential given (connection_string, account_key or sas_token), and the default"
              + " credential chain needs com.azure:azure-identity on the class path; add that dependency or give a credential");
    }
    return Identity.build();
  }

  /** Only loaded once azure-identity is known to be present. */
  private static final class Identity {
    static TokenCredential build() {
      return new DefaultAzureCredentialBuilder().build();
    }
  }
}
