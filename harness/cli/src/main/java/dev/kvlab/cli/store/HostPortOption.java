package dev.kvlab.cli.store;

import dev.kvlab.harness.api.input.BadInputException;

/** A {@code HOST:PORT} given on the command line ({@code [::1]:7000} for IPv6). */
public record HostPortOption(String host, int port) {

    public static HostPortOption parse(String option, String text, boolean allowZeroPort) {
        if (text == null || text.isBlank()) throw new BadInputException(option + ": expected HOST:PORT");
        String s = text.strip();
        int colon = s.lastIndexOf(':');
        if (colon <= 0 || colon == s.length() - 1)
            throw new BadInputException(option + ": expected HOST:PORT, got '" + text + "'");
        String host = s.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        int port;
        try {
            port = Integer.parseInt(s.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new BadInputException(option + ": port of '" + text + "' is not a number");
        }
        if (port < (allowZeroPort ? 0 : 1) || port > 65535)
            throw new BadInputException(option + ": port " + port + " is out of range");
        return new HostPortOption(host, port);
    }
}
