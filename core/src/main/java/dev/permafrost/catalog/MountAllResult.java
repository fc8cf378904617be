/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import java.util.List;
import java.util.Map;

/**
 * What {@link Catalog#mountAll} did: the indices it mounted, in the order of the specs, and each that failed with
 * why (one failure never stops the others).
 *
 * @param mounted the indices mounted
 * @param failed the names that could not be mounted, with the failure's message
 */
public record MountAllResult(List<MountInfo> mounted, Map<String, String> failed) {}
