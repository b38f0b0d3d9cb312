package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/looprig/mcp/client"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("apicheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "", "the last release's `tag`, whose API the report compares against (required)")
	reportPath := fs.String("report", "", "apidiff's report `file` (required)")
	changelog := fs.String("changelog", "CHANGELOG.md", "the changelog `file`")
	version := fs.String("version", client.Version, "the module's `version` now")
	headTag := fs.String("head-tag", "", "the release `tag` at HEAD, if HEAD is a release")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *base == "" || *reportPath == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: apicheck -base TAG -report FILE [-changelog FILE] [-version V] [-head-tag TAG]")
		return 2
	}
	in, err := readInput(*reportPath, *changelog)
	if err != nil {
		fmt.Fprintf(stderr, "apicheck: %v\n", err)
		return 2
	}
	in.Base, in.Version, in.HeadTag = *base, *version, *headTag
	fmt.Fprintf(stdout, "public API of github.com/looprig/mcp against %s, Version %s\n", in.Base, in.Version)
	in.Report.Write(stdout)
	if err := Check(in); err != nil {
		fmt.Fprintf(stdout, "FAIL: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "ok: Version and CHANGELOG.md follow the tag policy")
	return 0
}

func readInput(reportPath, changelogPath string) (Input, error) {
	f, err := os.Open(reportPath)
	if err != nil {
		return Input{}, err
	}
	defer f.Close()
	rep, err := ParseReport(f)
	if err != nil {
		return Input{}, err
	}
	cl, err := os.ReadFile(changelogPath)
	if err != nil {
		return Input{}, err
	}
	return Input{Report: rep, Changelog: string(cl)}, nil
}
