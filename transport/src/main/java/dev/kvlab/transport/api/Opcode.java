package dev.kvlab.transport.api;

/** Direction of one transfer request, seen from the initiator. */
public enum Opcode {
    /** Copy bytes from the target segment into the initiator's local buffer. */
    READ,
    /** Copy bytes from the initiator's local buffer into the target segment. */
    WRITE
}
