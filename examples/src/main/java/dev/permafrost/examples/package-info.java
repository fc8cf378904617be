/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * Runnable examples of Permafrost: the quickstart (write a log index, snapshot it, mount it, query it cold and
 * warm).
 */
package dev.permafrost.examples;
