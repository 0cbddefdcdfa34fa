// The start-up floor `make bench` measures reach against: the same command line read
// from the same declarations as `reach`, help and usage errors printed as `reach` prints
// them, and a hello-world instead of any command.
import ReachCLI

ReachMain.parseOnly()
