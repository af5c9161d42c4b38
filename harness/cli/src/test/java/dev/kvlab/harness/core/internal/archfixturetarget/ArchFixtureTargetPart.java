package dev.kvlab.harness.core.internal.archfixturetarget;

/** A stand-in for a target module's class in ArchitectureRulesTest (its floor comes from where it is, not its package). Never used. */
public final class ArchFixtureTargetPart {}
