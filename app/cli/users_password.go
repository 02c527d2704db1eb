package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"

	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"

	"github.com/loreweave/loreweave/app/auth"
)

// usersPasswordCmd sets a user's password for an operator whose server cannot send mail. The
// password never comes from an argument (it would stay in the shell's history and show in
// the process list): it is typed on the terminal without echo, or read from stdin.
func usersPasswordCmd(app core.App) *cobra.Command {
	return &cobra.Command{
		Use:   "password EMAIL",
		Short: "Set a user's password (typed without echo, or read from stdin) and sign out their sessions",
		Long: "Sets a new password for the account with EMAIL and signs out every session of it, also in a running server.\n" +
			"On a terminal the password is asked for twice, without echo; otherwise the first line of stdin is the password:\n" +
			"  printf '%s\\n' \"$NEW_PASSWORD\" | loreweave users password ann@example.com",
		Args:         cobra.ArbitraryArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("usage: %s (the password is read from the terminal or stdin, never from an argument)", c.UseLine())
			}
			if err := ready(app); err != nil {
				return err
			}
			u, err := auth.FindUserByEmail(app, args[0])
			if err != nil {
				return fmt.Errorf("no user with email %q", args[0])
			}
			password, err := readNewPassword(c.InOrStdin(), c.ErrOrStderr(), u.Email())
			if err != nil {
				return err
			}
			if err := auth.SetPassword(app, u, password); err != nil {
				return userError(err)
			}
			fmt.Fprintf(c.OutOrStdout(), "password of %s changed; their sessions are signed out\n", u.Email())
			return nil
		},
	}
}

// readNewPassword reads a password: from a terminal, twice and without echo; from anything
// else, the first line.
func readNewPassword(in io.Reader, prompt io.Writer, email string) (string, error) {
	f, ok := in.(*os.File)
	if !ok || !isTerminal(f) {
		line, err := bufio.NewReader(in).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read password from stdin: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			return "", errors.New("no password on stdin (its first line is the password)")
		}
		return line, nil
	}
	fmt.Fprintf(prompt, "New password for %s: ", email)
	first, err := readWithoutEcho(f)
	fmt.Fprintln(prompt)
	if err != nil {
		return "", err
	}
	fmt.Fprint(prompt, "Again: ")
	again, err := readWithoutEcho(f)
	fmt.Fprintln(prompt)
	if err != nil {
		return "", err
	}
	if first != again {
		return "", errors.New("the two passwords differ; nothing changed")
	}
	return first, nil
}

// readWithoutEcho reads a line from the terminal tty with its echo off (stty), and turns the
// echo back on afterwards, also on Ctrl-C.
func readWithoutEcho(tty *os.File) (string, error) {
	stty := func(arg string) error {
		cmd := exec.Command("stty", arg)
		cmd.Stdin = tty
		return cmd.Run()
	}
	if err := stty("-echo"); err != nil {
		return "", fmt.Errorf("cannot hide the password as it is typed (stty: %v); pipe it on stdin instead", err)
	}
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-interrupted:
			_ = stty("echo")
			os.Exit(130)
		case <-done:
		}
	}()
	defer func() {
		close(done)
		signal.Stop(interrupted)
		_ = stty("echo")
	}()
	line, err := bufio.NewReader(tty).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read password: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}
