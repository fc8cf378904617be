/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The layering of core's packages, checked on the compiled classes (what the code names, not what its comments say):
 * no package's classes depend on each other in a cycle (a nested class counts as its outer class), and in
 * {@code dev.permafrost.store} no class depends on a class of a layer above its own. The layers are the ones the store
 * package's description names; every class of it must be in one.
 *
 * <p>{@link SourceCyclesTest} checks every module's packages for cycles on the sources instead. Both exist because
 * each sees what the other cannot: javac inlines a {@code static final} constant of a primitive or String type into
 * the class that reads it, so a class that only reads another's constants ({@code case B.REASON ->}) names it
 * nowhere in its bytecode, and the cycle rule here passes over that pair; the sources show it. The bytecode, for
 * its part, has the types resolved, which the layer rule needs and a reading by word cannot give.
 */
class ArchitectureTest {
  /** The layers of {@code dev.permafrost.store}, from the top: each may use the ones below it, never one above. */
  static final Map<String, Set<String>> STORE_LAYERS = new LinkedHashMap<>();

  static {
    STORE_LAYERS.put("Lucene face", Set.of("BlobDirectory", "SharedRegionCache", "ColumnPrefetch",
        "HitPrefetchingCollector", "BlobIndexInput", "IndexFile", "ReadIntent"));
    STORE_LAYERS.put("One blob", Set.of("CachedBlob", "BlobTable", "DirectRead"));
    STORE_LAYERS.put("Cache space", Set.of("Slot", "SlotGeneration", "SlotPool", "RegionOwner", "WindowTarget",
        "EvictionPolicy", "CostAwareTinyLfu", "FrequencySketch", "CacheSpace"));
    STORE_LAYERS.put("Fetching", Set.of("PrefetchBatch", "Filler", "FetchTask", "Fill", "Fillable", "FetchOrigin", "VerifiedFetch",
        "BlobChecksums"));
    STORE_LAYERS.put("Support", Set.of("CacheFile", "CacheRecord", "CacheSummary", "CacheStats", "CacheStatsCounter",
        "CacheWriteFailedException", "ReadCost", "ReadDeadline", "HeapWindow", "DirectReadBudget", "WarnOnce",
        "CacheSizing"));
  }

  private static final String STORE = "dev.permafrost.store";
  private static JavaClasses core;

  @BeforeAll
  static void importCore() {
    core = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.permafrost");
  }

  /** The simple name of the top-level class {@code c} is, or is nested in. */
  static String topLevel(JavaClass c) {
    String name = c.getName().substring(c.getPackageName().length() + 1);
    int nested = name.indexOf('$');
    return nested < 0 ? name : name.substring(0, nested);
  }

  @ParameterizedTest
  @ValueSource(strings = {"dev.permafrost.store", "dev.permafrost.catalog", "dev.permafrost.blob",
      "dev.permafrost.snapshot"})
  void noClassesOfAPackageDependOnEachOtherInACycle(String pkg) {
    slices().assignedFrom(new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass c) {
        return c.getPackageName().equals(pkg) && !c.getSimpleName().equals("package-info")
            ? SliceIdentifier.of(topLevel(c)) : SliceIdentifier.ignore();
      }

      @Override
      public String getDescription() {
        return "the top-level classes of " + pkg;
      }
    }).should().beFreeOfCycles().check(core);
  }

  @Test
  void everyStoreClassIsInOneLayer() {
    Set<String> classes = new TreeSet<>();
    for (JavaClass c : core) {
      if (c.getPackageName().equals(STORE) && !c.getSimpleName().equals("package-info")) {
        classes.add(topLevel(c));
      }
    }
    Set<String> layered = new TreeSet<>();
    STORE_LAYERS.values().forEach(layered::addAll);
    assertEquals(layered, classes, "the store's classes and the layers' members (put a new class in a layer, here"
        + " and in the package description)");
  }

  @Test
  void storeLayersOnlyLookDown() {
    var layers = layeredArchitecture().consideringOnlyDependenciesInLayers();
    for (Map.Entry<String, Set<String>> layer : STORE_LAYERS.entrySet()) {
      Set<String> members = layer.getValue();
      layers = layers.layer(layer.getKey()).definedBy(DescribedPredicate.describe("the classes " + members,
          (JavaClass c) -> c.getPackageName().equals(STORE) && members.contains(topLevel(c))));
    }
    List<String> names = List.copyOf(STORE_LAYERS.keySet());
    for (int i = 1; i < names.size(); i++) {
      layers = layers.whereLayer(names.get(i)).mayOnlyBeAccessedByLayers(names.subList(0, i).toArray(String[]::new));
    }
    layers = layers.whereLayer(names.get(0)).mayNotBeAccessedByAnyLayer();
    layers.check(core);
  }
}
