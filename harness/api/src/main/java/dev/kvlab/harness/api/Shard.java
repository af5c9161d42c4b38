package dev.kvlab.harness.api;

import dev.kvlab.harness.api.input.BadInputException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * One share of a matrix's runs ({@code kvlab run --shard K/N}), for running a matrix on a scheduler one already has
 * (a Kubernetes Indexed Job, a Slurm array, GNU parallel): the runs of the matrix (cells × replicates, in matrix order)
 * are dealt round-robin, run {@code i} (from 0) to shard {@code i mod N + 1}. The share is a pure function of the
 * resolved matrix and (K, N), so every shard computes the same partition without talking to the others, and
 * {@code kvlab merge} can check that the shards cover every run exactly once.
 *
 * @param index K, from 1
 * @param count N
 */
public record Shard(int index, int count) {

    public static final int MAX_COUNT = 100_000;

    public Shard {
        if (count < 1 || count > MAX_COUNT)
            throw new IllegalArgumentException("--shard K/N: N must be 1.." + MAX_COUNT + ", got " + count);
        if (index < 1 || index > count)
            throw new IllegalArgumentException("--shard K/N: K must be 1.." + count + ", got " + index);
    }

    /** {@code K/N}, e.g. {@code 2/8}. */
    public static Shard parse(String text) {
        String s = text == null ? "" : text.strip();
        int slash = s.indexOf('/');
        if (slash <= 0
                || !s.substring(0, slash).matches("\\d{1,6}")
                || !s.substring(slash + 1).matches("\\d{1,6}"))
            throw new IllegalArgumentException(
                    "--shard must be K/N (e.g. 1/4, shards counted from 1), got '" + text + "'");
        return new Shard(Integer.parseInt(s.substring(0, slash)), Integer.parseInt(s.substring(slash + 1)));
    }

    public String label() {
        return index + "/" + count;
    }

    /** Whether run {@code unit} (its position in {@link MatrixSpec#runs()}, from 0) is this shard's. */
    public boolean holds(int unit) {
        return unit % count == index - 1;
    }

    /**
     * The hash of this shard of a matrix whose hash is {@code matrixSha256}: what the shard's bundle records as its
     * {@code matrix.sha256} (and so what its run id and {@code --resume} match; the whole matrix's hash is kept in the
     * manifest's {@code shard} section).
     */
    public String sha256Of(String matrixSha256) {
        return sha256(matrixSha256 + "\nshard " + label() + "\n");
    }

    /**
     * {@code spec} restricted to this shard's runs: the same matrix (name, factors, baseline, inputs, resolved keys),
     * holding only the cells with a run here, each with only its runs here.
     *
     * @throws BadInputException when the shard holds no run (more shards than runs), or the matrix's capacity search may
     *                           add replicates to a cell (decided from all its replicates, which no shard sees)
     */
    public MatrixSpec select(MatrixSpec spec) {
        if (spec.capacity() != null && spec.capacity().mayAddReplicates(spec.cells()))
            throw new BadInputException(
                    "--shard " + label()
                            + ": capacity.max_replicates adds replicates to a cell from the interval of all its "
                            + "replicates, which no shard sees; shard a search with max_replicates equal to its replicates (or none)");
        List<MatrixCell> cells = new ArrayList<>();
        int unit = 0, held = 0;
        for (MatrixCell c : spec.cells()) {
            List<CellRun> mine = new ArrayList<>();
            for (CellRun r : c.runs()) if (holds(unit++)) mine.add(r);
            if (!mine.isEmpty()) cells.add(new MatrixCell(c.index(), c.id(), c.factors(), mine));
            held += mine.size();
        }
        if (held == 0)
            throw new BadInputException(
                    "--shard " + label() + ": the matrix has only " + unit + " runs (cells x replicates), so shard "
                            + index + " has none;" + " use at most " + unit + " shards");
        return new MatrixSpec(
                spec.name(),
                spec.file(),
                spec.description(),
                spec.factors(),
                spec.replicates(),
                spec.baseline(),
                cells,
                spec.inputs(),
                sha256Of(spec.sha256()),
                spec.resolved(),
                spec.experiment());
    }

    /** SHA-256 of {@code text}'s ASCII bytes, as lower-case hex: how a share's hash derives from its matrix's. */
    public static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
