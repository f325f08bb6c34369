// Command h3a-check checks AI-agent run directories and gates progress on evidence.
package main

import (
	"os"

	"github.com/h3a-check/h3a-check/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
