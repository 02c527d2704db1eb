// Command loreweave is a self-hosted worldbuilding server: `loreweave serve` runs it;
// `loreweave users|keys|worlds ...` manage it from the command line.
package main

import (
	"log"
	"os"

	"github.com/pocketbase/pocketbase"
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
	if err := pb.Start(); err != nil {
		log.Fatal(err)
	}
	if cli.Failed() {
		os.Exit(1)
	}
}
