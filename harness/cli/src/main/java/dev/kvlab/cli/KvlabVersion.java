package dev.kvlab.cli;

import picocli.CommandLine;

/** {@code kvlab --version}: the build's version from the jar manifest, the JVM that runs it. */
public final class KvlabVersion implements CommandLine.IVersionProvider {

    /** The version this build was packaged as, or {@code dev} when running from classes. */
    public static String version() {
        String v = Kvlab.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    @Override
    public String[] getVersion() {
        return new String[] {
            "kvlab " + version(),
            "JVM: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
            "OS: " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                    + System.getProperty("os.arch")
        };
    }
}
