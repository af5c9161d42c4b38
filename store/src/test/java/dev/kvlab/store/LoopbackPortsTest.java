package dev.kvlab.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {

    @Test
    void portsAreDistinctFreeAndBelowTheKernelsEphemeralRange() throws Exception {
        int ephemeralLow;
        try (var in = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
            ephemeralLow = Integer.parseInt(in.readLine().trim().split("\\s+")[0]);
        }
        int[] ports = LoopbackPorts.free(4);
        assertEquals(4, Arrays.stream(ports).distinct().count(), Arrays.toString(ports));
        for (int p : ports) {
            assertTrue(p >= 20_000 && p < ephemeralLow, "port " + p + " lies outside [20000, " + ephemeralLow + ")");
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress("127.0.0.1", p)); // free after the call
            }
        }
    }

    @Test
    void aChildThatCouldNotBindIsToldApartFromOneThatFailedOtherwise() {
        assertTrue(LoopbackPorts.lostRace("etcdmain: listen tcp 127.0.0.1:37563: bind: address already in use"));
        assertTrue(LoopbackPorts.lostRace(
                "# Could not create server TCP listening socket 127.0.0.1:6379: bind: Address already in use"));
        assertFalse(LoopbackPorts.lostRace("etcdmain: cannot access data directory: permission denied"));
        assertFalse(LoopbackPorts.lostRace(null));
    }
}
