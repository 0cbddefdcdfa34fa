import ReachCLI

ReachMain.run()
