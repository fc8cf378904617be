/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spring.autoconfigure;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** A size such as {@code 512mb} ({@code b}, {@code kb}, {@code mb}, {@code gb}); null is valid (not set). */
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.RECORD_COMPONENT})
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = ByteSizeValidator.class)
public @interface ByteSize {
  /** Whether a share of the disk such as {@code 80%} is accepted too. */
  boolean share() default false;

  /** Whether zero is accepted. */
  boolean zero() default false;

  /** The message. */
  String message() default "must be a size such as 512mb (b, kb, mb, gb)";

  /** Validation groups. */
  Class<?>[] groups() default {};

  /** Payload. */
  Class<? extends Payload>[] payload() default {};
}
