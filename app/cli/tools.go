package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/examples"
	"github.com/loreweave/loreweave/ops"
)

// toolsCmd builds, checks, tests and installs tools (docs/TOOLS.md). init, validate and
// test need no server and no database; install, list and uninstall work on the data
// directory, or with --url and --key on a running server through its API.
func toolsCmd(app core.App) *cobra.Command {
	cmd := &cobra.Command{Use: "tools", Short: "Build, test and install tools (your own document types)"}

	var example string
	initCmd := &cobra.Command{
		Use:          "init DIR",
		Short:        "Write a working example tool, with test fixtures, into a new directory",
		Args:         cobra.ArbitraryArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("usage: %s", c.UseLine())
			}
			return initTool(c.OutOrStdout(), args[0], example)
		},
	}
	initCmd.Flags().StringVar(&example, "example", "factions", "the example to start from: "+strings.Join(exampleNames(), " or "))

	validate := &cobra.Command{
		Use:          "validate DIR",
		Short:        "Check DIR/tool.json and the test fixtures; errors name the file and JSON Pointer",
		Args:         cobra.ArbitraryArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("usage: %s", c.UseLine())
			}
			t, err := validateTool(c.ErrOrStderr(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "%s: %s\n", filepath.Join(args[0], "tool.json"), describeTool(t))
			return nil
		},
	}

	test := &cobra.Command{
		Use:          "test DIR",
		Short:        "Run DIR/tests/*.json through the server's engine and compare with what they expect",
		Args:         cobra.ArbitraryArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("usage: %s", c.UseLine())
			}
			return testTool(c.OutOrStdout(), c.ErrOrStderr(), args[0])
		},
	}

	var world string
	var remote server
	install := &cobra.Command{
		Use:          "install DIR --world WORLD_ID [--url URL --key KEY]",
		Short:        "Install DIR/tool.json in a world, or upgrade the installed version",
		Args:         cobra.ArbitraryArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("usage: %s", c.UseLine())
			}
			if err := required(c, "world"); err != nil {
				return err
			}
			if _, err := validateTool(c.ErrOrStderr(), args[0]); err != nil {
				return err
			}
			file := filepath.Join(args[0], "tool.json")
			manifest, err := os.ReadFile(file)
			if err != nil {
				return err
			}
			var info store.ToolInfo
			var upgraded bool
			if remote.url != "" {
				info, upgraded, err = remote.install(world, manifest)
			} else {
				info, upgraded, err = installLocal(app, world, manifest)
			}
			if err != nil {
				return reportToolError(c.ErrOrStderr(), file, err)
			}
			verb := "installed"
			if upgraded {
				verb = "upgraded"
			}
			fmt.Fprintf(c.OutOrStdout(), "%s %s %s in world %s (tool id %s): %s\n", verb, info.Name, info.Version, world, info.ID, toolContents(info))
			return nil
		},
	}

	list := &cobra.Command{
		Use:          "list --world WORLD_ID [--url URL --key KEY]",
		Short:        "List the tools installed in a world",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := required(c, "world"); err != nil {
				return err
			}
			var tools []store.ToolInfo
			var err error
			if remote.url != "" {
				tools, err = remote.list(world)
			} else {
				tools, err = listLocal(app, world)
			}
			if err != nil {
				return reportToolError(c.ErrOrStderr(), "", err)
			}
			tw := tabwriter.NewWriter(c.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tVERSION\tTYPES\tAPP KINDS\tINSTALLED")
			for _, t := range tools {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, terminalSafe(t.Name), terminalSafe(t.Version),
					dash(terminalSafe(strings.Join(t.DocumentTypes, ", "))), dash(terminalSafe(strings.Join(t.AppKinds, ", "))), dash(t.Installed))
			}
			return tw.Flush()
		},
	}

	uninstall := &cobra.Command{
		Use:          "uninstall NAME --world WORLD_ID [--url URL --key KEY]",
		Short:        "Uninstall a tool from a world; its documents stay, read-only, until it is installed again",
		Args:         cobra.ArbitraryArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("usage: %s", c.UseLine())
			}
			if err := required(c, "world"); err != nil {
				return err
			}
			var err error
			if remote.url != "" {
				err = remote.uninstall(world, args[0])
			} else {
				err = uninstallLocal(app, world, args[0])
			}
			if err != nil {
				return reportToolError(c.ErrOrStderr(), "", err)
			}
			fmt.Fprintf(c.OutOrStdout(), "uninstalled %s from world %s; its documents stay and read as stored until it is installed again\n", args[0], world)
			return nil
		},
	}

	for _, sub := range []*cobra.Command{install, list, uninstall} {
		sub.Flags().StringVar(&world, "world", "", "the world's id (required; on the data directory its slug works too)")
		sub.Flags().StringVar(&remote.url, "url", "", "a running server's address (https://lore.example.com); without it the data directory (--dir) is changed")
		sub.Flags().StringVar(&remote.key, "key", "", "with --url: an API key of the world's owner or an admin (default: env LOREWEAVE_KEY)")
	}
	cmd.AddCommand(initCmd, validate, test, install, list, uninstall)
	return cmd
}

// initTool writes the example tool named example into dir, which must be new or empty.
func initTool(out io.Writer, dir, example string) error {
	if !slices.Contains(exampleNames(), example) {
		return fmt.Errorf("no example named %q: choose %s", example, strings.Join(exampleNames(), " or "))
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty: init writes a new tool into a new or empty directory", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	src, err := fs.Sub(examples.Tools, "tools/"+example)
	if err != nil {
		return err
	}
	fixtures := 0
	err = fs.WalkDir(src, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(src, path)
		if err != nil {
			return err
		}
		if strings.HasPrefix(path, "tests/") {
			fixtures++
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s and %d test fixtures in %s\n", filepath.Join(dir, "tool.json"), fixtures, filepath.Join(dir, "tests"))
	fmt.Fprintf(out, "next: loreweave tools test %s, then loreweave tools install %s --world WORLD_ID\n", dir, dir)
	return nil
}

// exampleNames lists the embedded example tools.
func exampleNames() []string {
	entries, _ := fs.ReadDir(examples.Tools, "tools")
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

// problemsError is a failure whose details were already printed, one line each.
type problemsError struct {
	file string
	n    int
}

func (e *problemsError) Error() string {
	if e.n == 1 {
		return e.file + ": 1 problem"
	}
	return fmt.Sprintf("%s: %d problems", e.file, e.n)
}

// validateTool parses dir/tool.json and checks that every fixture is JSON. Each problem is
// written to errOut as "FILE: /pointer: message".
func validateTool(errOut io.Writer, dir string) (*ops.Tool, error) {
	t, problems := parseToolFile(dir)
	fixtures, _ := filepath.Glob(filepath.Join(dir, "tests", "*.json"))
	for _, f := range fixtures {
		data, err := os.ReadFile(f)
		if err != nil {
			problems = append(problems, fileProblem{f, "", err.Error()})
		} else if msg := jsonSyntax(data); msg != "" {
			problems = append(problems, fileProblem{f, "", msg})
		}
	}
	if len(problems) == 0 {
		return t, nil
	}
	for _, p := range problems {
		fmt.Fprintln(errOut, p)
	}
	return nil, &problemsError{file: dir, n: len(problems)}
}

// fileProblem is one problem in a file, at a JSON Pointer when it has one.
type fileProblem struct {
	file, pointer, message string
}

func (p fileProblem) String() string {
	if p.pointer == "" {
		return p.file + ": " + p.message
	}
	return p.file + ": " + p.pointer + ": " + p.message
}

// parseToolFile reads and parses dir/tool.json.
func parseToolFile(dir string) (*ops.Tool, []fileProblem) {
	file := filepath.Join(dir, "tool.json")
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, []fileProblem{{file, "", "not found: a tool's directory holds its manifest, tool.json (loreweave tools init writes one)"}}
	} else if err != nil {
		return nil, []fileProblem{{file, "", err.Error()}}
	}
	if msg := jsonSyntax(data); msg != "" {
		return nil, []fileProblem{{file, "", msg}}
	}
	t, err := ops.ParseTool(data)
	var me *ops.ManifestError
	switch {
	case errors.As(err, &me):
		out := make([]fileProblem, 0, len(me.Problems))
		for _, p := range me.Problems {
			out = append(out, fileProblem{file, p.Pointer, p.Message})
		}
		if len(out) == 0 {
			out = append(out, fileProblem{file, "", me.Error()})
		}
		return nil, out
	case err != nil:
		return nil, []fileProblem{{file, "", err.Error()}}
	}
	return t, nil
}

// jsonSyntax describes what makes data not JSON, with the line and column; "" when it is.
func jsonSyntax(data []byte) string {
	var v any
	err := json.Unmarshal(data, &v)
	if err == nil {
		return ""
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := position(data, se.Offset)
		return fmt.Sprintf("not valid JSON: line %d, column %d: %v", line, col, se)
	}
	return "not valid JSON: " + err.Error()
}

// position turns a syntax error's offset (the bytes read up to and including the one at
// fault) into the 1-based line and column of that byte.
func position(data []byte, offset int64) (line, col int) {
	offset = max(min(offset-1, int64(len(data))), 0)
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// describeTool says what a valid tool holds.
func describeTool(t *ops.Tool) string {
	var parts []string
	for _, tt := range t.Types {
		parts = append(parts, fmt.Sprintf("type %s (%d ops)", tt.Name, len(tt.Ops())))
	}
	for _, k := range t.AppKinds {
		parts = append(parts, fmt.Sprintf("app kind %s (%s of %s)", k.Name, k.View.Type, k.View.DocumentType))
	}
	return fmt.Sprintf("%s %s is valid: %s", t.Name, t.Version, strings.Join(parts, ", "))
}

func toolContents(info store.ToolInfo) string {
	var parts []string
	if len(info.DocumentTypes) > 0 {
		parts = append(parts, "types "+strings.Join(info.DocumentTypes, ", "))
	}
	if len(info.AppKinds) > 0 {
		parts = append(parts, "app kinds "+strings.Join(info.AppKinds, ", "))
	}
	return strings.Join(parts, "; ")
}

// localWorld finds a world of the data directory by id, else by slug.
func localWorld(app core.App, idOrSlug string) (store.World, *store.Store, error) {
	if err := ready(app); err != nil {
		return store.World{}, nil, err
	}
	s := store.New(app)
	w, err := s.World(idOrSlug)
	if errors.Is(err, apierr.ErrNotFound) {
		w, err = s.WorldBySlug(idOrSlug)
	}
	if errors.Is(err, apierr.ErrNotFound) {
		return w, nil, fmt.Errorf("no world with id or slug %q in %s", idOrSlug, app.DataDir())
	}
	return w, s, err
}

// cliActor is who the history names for a change made on the data directory: the world's
// owner, through the command line.
func cliActor(w store.World) store.Actor {
	return store.Actor{UserID: w.OwnerID, Name: "command line", Credential: "cli"}
}

func installLocal(app core.App, world string, manifest []byte) (store.ToolInfo, bool, error) {
	w, s, err := localWorld(app, world)
	if err != nil {
		return store.ToolInfo{}, false, err
	}
	return s.InstallTool(w.ID, manifest, cliActor(w))
}

func listLocal(app core.App, world string) ([]store.ToolInfo, error) {
	w, s, err := localWorld(app, world)
	if err != nil {
		return nil, err
	}
	return s.Tools(w.ID)
}

func uninstallLocal(app core.App, world, name string) error {
	w, s, err := localWorld(app, world)
	if err != nil {
		return err
	}
	if err := s.UninstallTool(w.ID, name, cliActor(w)); errors.Is(err, apierr.ErrNotFound) {
		return fmt.Errorf("no tool %q is installed in world %s", name, world)
	} else if err != nil {
		return err
	}
	return nil
}

// reportToolError prints the lists a refusal carries (a manifest's problems, the documents
// an upgrade would break), one a line, and returns the error as a sentence.
func reportToolError(errOut io.Writer, file string, err error) error {
	var me *ops.ManifestError
	if errors.As(err, &me) {
		for _, p := range me.Problems {
			fmt.Fprintln(errOut, fileProblem{file, p.Pointer, p.Message})
		}
		return &problemsError{file: file, n: len(me.Problems)}
	}
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		return err
	}
	printDetails(errOut, file, ae.Details)
	return fmt.Errorf("%s: %s", ae.Code, ae.Message)
}

// printDetails prints an API error's lists: problems ({pointer, message}) and documents.
func printDetails(errOut io.Writer, file string, details map[string]any) {
	// Details hold Go values locally and decoded JSON from a server: one shape for both.
	data, err := json.Marshal(details)
	if err != nil {
		return
	}
	var d struct {
		Problems  []ops.Problem `json:"problems"`
		Documents []struct {
			ID      string `json:"id"`
			Name    string `json:"name"`
			Type    string `json:"documentType"`
			Field   string `json:"field"`
			Message string `json:"message"`
		} `json:"documents"`
	}
	if json.Unmarshal(data, &d) != nil {
		return
	}
	for _, p := range d.Problems {
		fmt.Fprintln(errOut, terminalSafe(fileProblem{file, p.Pointer, p.Message}.String()))
	}
	for _, doc := range d.Documents {
		line := "document " + doc.ID
		if doc.Name != "" {
			line += " (" + doc.Name + ")"
		}
		if doc.Field != "" {
			line += ": " + doc.Field
		}
		if doc.Message != "" {
			line += ": " + doc.Message
		}
		fmt.Fprintln(errOut, terminalSafe(line))
	}
}

// Offline reports whether args run a command that needs no data directory: tools init,
// validate and test work on files only.
func Offline(args []string) bool {
	return len(args) >= 2 && args[0] == "tools" && slices.Contains([]string{"init", "validate", "test"}, args[1])
}
