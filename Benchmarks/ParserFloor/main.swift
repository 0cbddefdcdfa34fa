// The start-up floor `make bench` measures reach against: the same
// swift-argument-parser command tree, parsed from the same arguments, and
// then a hello-world instead of the evaluation.
import ReachCLI

ReachMain.parseOnly()
