package dev.kvlab.harness.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.kvlab.archfixture.a.ArchFixtureA;
import dev.kvlab.archfixture.b.ArchFixtureB;
import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.archfixture.ArchFixtureApiUsesItsInternal;
import dev.kvlab.harness.core.internal.archfixture.ArchFixtureCoreUsesTarget;
import dev.kvlab.harness.core.internal.archfixturetarget.ArchFixtureTargetPart;
import dev.kvlab.harness.report.archfixture.ArchFixtureReportUsesApiInternal;
import dev.kvlab.harness.report.archfixture.ArchFixtureReportUsesCoreInternal;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The rules catch what they are for: each deliberate violation (a test fixture) is reported, and nothing else. */
class ArchitectureRulesTest {

    private static SortedSet<String> violationsOf(Class<?>... fixtures) {
        JavaClasses c = new ClassFileImporter().importClasses(fixtures);
        return ArchitectureRules.violations(c);
    }

    @Test
    void anApiTypeUsingInternal() throws ClassNotFoundException {
        assertEquals(
                new TreeSet<>(
                        Set.of(
                                "api packages see only api and spi packages: dev.kvlab.transport.api -> dev.kvlab.transport.internal.common")),
                violationsOf(Class.forName("dev.kvlab.transport.api.ArchFixtureApiUsesInternal")));
    }

    @Test
    void transportReachingUpIntoStore() throws ClassNotFoundException {
        assertEquals(
                new TreeSet<>(Set.of(
                        "transport depends on no other kvlab module: dev.kvlab.transport.api -> dev.kvlab.store.api")),
                violationsOf(Class.forName("dev.kvlab.transport.api.ArchFixtureTransportUsesStore")));
    }

    @Test
    void harnessUsingTheStoresInternal() {
        assertEquals(
                new TreeSet<>(
                        Set.of("a module uses another only through its api, spi and entry points, never its internal: "
                                + "dev.kvlab.harness.architecture -> dev.kvlab.store.internal.cluster")),
                violationsOf(ArchFixtureHarnessUsesStoreInternal.class));
    }

    @Test
    void oneHarnessModuleUsingAnothersInternal() {
        assertEquals(
                new TreeSet<>(Set.of(ArchitectureRules.INTERNAL_RULE
                        + ": dev.kvlab.harness.report.archfixture -> dev.kvlab.harness.core.internal.measure")),
                violationsOf(ArchFixtureReportUsesCoreInternal.class),
                "the report may use core, but not core's internal");
    }

    @Test
    void aHarnessModuleUsingHarnessApisInternal() {
        assertEquals(
                new TreeSet<>(Set.of(ArchitectureRules.INTERNAL_RULE
                        + ": dev.kvlab.harness.report.archfixture -> dev.kvlab.harness.internal.gguf")),
                violationsOf(ArchFixtureReportUsesApiInternal.class),
                "the report may use harness/api, but not its internal");
    }

    @Test
    void harnessApisApiUsingItsOwnInternal() {
        assertEquals(
                new TreeSet<>(
                        Set.of(
                                "api packages see only api and spi packages: dev.kvlab.harness.api.archfixture -> dev.kvlab.harness.internal.gguf")),
                violationsOf(ArchFixtureApiUsesItsInternal.class));
    }

    @Test
    void harnessApisEntryPointBuildsItsInternal() {
        assertEquals(new TreeSet<>(), violationsOf(Gguf.class), "dev.kvlab.harness is harness/api's entry point");
        assertEquals("api", ArchitectureRules.floorOfPackage("dev.kvlab.harness"));
        assertEquals("api", ArchitectureRules.floorOfPackage("dev.kvlab.harness.internal.gguf"));
    }

    @Test
    void theCoreReachingUpIntoTheReport() throws ClassNotFoundException {
        assertEquals(
                new TreeSet<>(
                        Set.of(
                                "the harness's modules point one way: api <- core, bundle, metrics, benchmark; core + bundle <- report <- experiments; "
                                        + "core <- each target: dev.kvlab.harness.core.internal.archfixture -> dev.kvlab.harness.report")),
                violationsOf(Class.forName("dev.kvlab.harness.core.internal.archfixture.ArchFixtureCoreUsesReport")));
    }

    @Test
    void theCoreReachingIntoATargetModule() {
        JavaClasses c =
                new ClassFileImporter().importClasses(ArchFixtureCoreUsesTarget.class, ArchFixtureTargetPart.class);
        String violation =
                "the harness's modules point one way: api <- core, bundle, metrics, benchmark; core + bundle <- report <- experiments; "
                        + "core <- each target: dev.kvlab.harness.core.internal.archfixture -> dev.kvlab.harness.core.internal.archfixturetarget";
        assertEquals(
                new TreeSet<>(
                        Set.of(
                                violation,
                                ArchitectureRules.INTERNAL_RULE
                                        + ": dev.kvlab.harness.core.internal.archfixture -> dev.kvlab.harness.core.internal.archfixturetarget")),
                ArchitectureRules.violations(
                        c,
                        k -> k.getPackageName().endsWith("archfixturetarget")
                                ? "targets/fixture"
                                : ArchitectureRules.floor(k)));
        assertEquals(new TreeSet<>(), ArchitectureRules.violations(c), "by its package alone the part is core's");
    }

    @Test
    void aPackageCycle() {
        JavaClasses c = new ClassFileImporter().importClasses(ArchFixtureA.class, ArchFixtureB.class);
        assertEquals(
                List.of(new TreeSet<>(Set.of("dev.kvlab.archfixture.a", "dev.kvlab.archfixture.b"))),
                ArchitectureRules.packageCycles(c));
    }

    @Test
    void transportsMainCodeBreaksNothing() {
        JavaClasses c = new ClassFileImporter()
                .withImportOption(ArchitectureTest.MainCodeOnly.INSTANCE)
                .importPackages("dev.kvlab.transport");
        assertEquals(new TreeSet<>(), ArchitectureRules.violations(c));
        assertEquals(List.of(), ArchitectureRules.packageCycles(c));
    }
}
