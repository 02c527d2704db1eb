// Command loreweave is a self-hosted worldbuilding server: `loreweave serve` runs it;
// `loreweave users|keys|worlds ...` manage it from the command line.
package main

import (
	"log"
	"os"

	"github.com/pocketbase/pocketbase"
	pbcmd "github.com/pocketbase/pocketbase/cmd"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"

	"github.com/loreweave/loreweave/app"
	"github.com/loreweave/loreweave/app/cli"
	"github.com/loreweave/loreweave/app/config"
)

func main() {
	// Dev mode (SQL logging) stays off unless --dev is given, even under `go run`.
	pb := pocketbase.NewWithConfig(pocketbase.Config{DefaultDev: false})
	flags := config.Bind(pb.RootCmd.PersistentFlags())
	pb.RootCmd.Use = "loreweave"
	pb.RootCmd.Short = "Loreweave, a self-hosted worldbuilding server"
	// PocketBase's coloured error writer prints to stdout; errors belong on stderr, so that
	// `loreweave keys create` prints nothing but the key on stdout.
	pb.RootCmd.SetErr(os.Stderr)
	pb.RootCmd.PersistentPreRunE = func(*cobra.Command, []string) error {
		cfg, err := flags.Load()
		if err != nil {
			return err
		}
		lw := app.Setup(pb, cfg)
		pb.OnServe().BindFunc(func(se *core.ServeEvent) error {
			if err := se.Next(); err != nil {
				return err
			}
			lw.Announce()
			return nil
		})
		return nil
	}
	cli.Register(pb.RootCmd, pb)
	// PocketBase's own commands, as pb.Start adds them, but added here so that Guard sees
	// them too: pb.Execute ignores the error of the command it ran, and a server that cannot
	// start (a bad setting, a port in use) must not exit with status 0.
	pb.RootCmd.AddCommand(pbcmd.NewSuperuserCommand(pb), pbcmd.NewServeCommand(pb, true))
	cli.Guard(pb.RootCmd)
	if _, _, err := pb.RootCmd.Find(os.Args[1:]); err != nil {
		cli.Fail() // an unknown command: cobra prints the error
	}
	run := pb.Execute
	if cli.Offline(os.Args[1:]) {
		// Building, checking and testing a tool needs no data directory: PocketBase's
		// bootstrap would make one in the current directory.
		run = pb.RootCmd.Execute
	}
	if err := run(); err != nil && !cli.Failed() {
		log.Fatal(err) // a failed command has said why already
	}
	if cli.Failed() {
		os.Exit(1)
	}
}
