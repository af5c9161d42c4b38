package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every command's --help renders cleanly: no picocli format warnings (a lone '%' in a description), no empty text. */
class HelpTextTest {

    private static void collect(CommandLine cl, List<CommandLine> out) {
        out.add(cl);
        for (CommandLine sub : cl.getSubcommands().values()) if (!out.contains(sub)) collect(sub, out);
    }

    @Test
    void everyCommandsHelpFormatsWithoutWarnings() {
        List<CommandLine> all = new ArrayList<>();
        collect(Kvlab.commandLine(), all);
        assertThat(all)
                .extracting(c -> c.getCommandName())
                .contains(
                        "demo",
                        "run",
                        "analyze",
                        "plan",
                        "breakeven",
                        "bench",
                        "transport",
                        "store",
                        "master",
                        "node",
                        "calibrate",
                        "verify",
                        "compare",
                        "report",
                        "model",
                        "synth");
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            for (CommandLine c : all) {
                String usage = c.getUsageMessage(CommandLine.Help.Ansi.OFF);
                assertThat(usage)
                        .as(c.getCommandSpec().qualifiedName())
                        .contains("Usage:")
                        .doesNotContain("%n");
            }
        } finally {
            System.setErr(err);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8))
                .as("picocli's warnings while formatting help")
                .doesNotContain("WARN");
    }
}
