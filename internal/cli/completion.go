package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/h3a-check/h3a-check/internal/report"
)

// shells are the shells completion writes a script for.
var shells = []string{"bash", "zsh", "fish"}

// runCompletion prints the completion script of one shell. The script is
// made from the subcommands and their flag sets, so it offers exactly the
// commands and flags this build has.
func runCompletion(_ context.Context, args []string, e *env) int {
	if len(args) != 1 || !slices.Contains(shells, args[0]) {
		return fail(e, usageError{fmt.Sprintf("completion takes one shell: %s", strings.Join(shells, ", "))})
	}
	if err := writeCompletion(e.stdout, args[0], completionModel(e)); err != nil {
		return fail(e, err)
	}
	return ExitPass
}

// complCommand is what a completion script knows of one subcommand.
type complCommand struct {
	Name  string
	Flags []complFlag
	Args  argKind
}

// complFlag is one flag: whether it takes a value, and which values.
type complFlag struct {
	Name       string
	Usage      string // the help text up to its first parenthesis or semicolon
	Value      bool
	Repeatable bool
	Choices    []string
	Dir, File  bool
}

type complModel struct {
	Commands []complCommand
	Rules    []string
	Shells   []string
}

// Flags whose values the scripts can list or complete as paths.
var (
	flagChoices = map[string]func() []string{
		"format":     report.Formats,
		"layout":     func() []string { return strings.Split(strings.ReplaceAll(layoutIDs(), `"`, ""), ", ") },
		"fail-level": func() []string { return []string{"error", "warning"} },
		"color":      func() []string { return []string{"auto", "always", "never"} },
	}
	dirFlags  = []string{"policy", "runs"}
	fileFlags = []string{"config", "cpuprofile", "memprofile"}
)

func completionModel(e *env) complModel {
	quiet := &env{stdin: e.stdin, stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	m := complModel{Shells: shells}
	for _, c := range subcommands() {
		cc := complCommand{Name: c.name, Args: c.args}
		if c.flags != nil {
			c.flags(quiet).VisitAll(func(f *flag.Flag) { cc.Flags = append(cc.Flags, describeFlag(f)) })
		}
		m.Commands = append(m.Commands, cc)
	}
	for _, r := range shippedRules() {
		m.Rules = append(m.Rules, r.ID)
	}
	return m
}

func describeFlag(f *flag.Flag) complFlag {
	_, usage := flag.UnquoteUsage(f)
	for _, cut := range []string{" (", "; "} {
		if i := strings.Index(usage, cut); i > 0 {
			usage = usage[:i]
		}
	}
	cf := complFlag{Name: f.Name, Usage: strings.TrimSpace(usage), Value: true}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		cf.Value = false
	}
	switch f.Value.(type) {
	case *listFlag, *outputFlag:
		cf.Repeatable = true
	}
	if choices, ok := flagChoices[f.Name]; ok {
		cf.Choices = choices()
	}
	cf.Dir = slices.Contains(dirFlags, f.Name)
	cf.File = slices.Contains(fileFlags, f.Name)
	return cf
}

func writeCompletion(w io.Writer, shell string, m complModel) error {
	return completionScripts().ExecuteTemplate(w, shell, m)
}

// completionScripts are parsed when a completion is asked for, not at
// the start of every command.
var completionScripts = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"join": strings.Join,
		"names": func(cs []complCommand) []string {
			var out []string
			for _, c := range cs {
				out = append(out, c.Name)
			}
			return out
		},
		"flagNames": func(fs []complFlag) string {
			var out []string
			for _, f := range fs {
				out = append(out, "--"+f.Name)
			}
			return strings.Join(out, " ")
		},
		// zshDesc makes text safe inside a single-quoted _arguments bracket.
		"zshDesc": func(s string) string {
			return strings.NewReplacer(`'`, `'\''`, `[`, `\[`, `]`, `\]`, `\`, `\\`).Replace(s)
		},
		// fishQuote makes text one single-quoted fish word.
		"fishQuote": func(s string) string {
			return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
		},
		"paths":  func(k argKind) bool { return k == argPaths },
		"rule":   func(k argKind) bool { return k == argRule },
		"shells": func(k argKind) bool { return k == argShells },
	}).Parse(bashCompletion + zshCompletion + fishCompletion))
})

const bashCompletion = `{{define "bash"}}# bash completion for h3a-check, made by "h3a-check completion bash".
# Load it with: source <(h3a-check completion bash)
# shellcheck disable=SC2207 # compgen prints one word per line, as COMPREPLY wants
_h3a_check() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=check
	if [[ $COMP_CWORD -gt 1 ]]; then
		case ${COMP_WORDS[1]} in
		{{join (names .Commands) "|"}}) cmd=${COMP_WORDS[1]} ;;
		esac
	fi
	case $cmd:$prev in
{{- range $c := .Commands}}{{range .Flags}}{{if .Value}}
	{{$c.Name}}:--{{.Name}}){{if .Choices}} COMPREPLY=($(compgen -W "{{join .Choices " "}}" -- "$cur")){{else if .Dir}} COMPREPLY=($(compgen -d -- "$cur")){{else}} COMPREPLY=(){{end}}; return ;;{{end}}{{end}}{{end}}
	esac
	local flags=""
	case $cmd in
{{- range .Commands}}
	{{.Name}}) flags="{{flagNames .Flags}}" ;;{{end}}
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
		return
	fi
	if [[ $COMP_CWORD -eq 1 ]]; then
		COMPREPLY=($(compgen -W "{{join (names .Commands) " "}}" -- "$cur") $(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		return
	fi
	case $cmd in
{{- range .Commands}}
	{{.Name}}){{if paths .Args}} COMPREPLY=() ;;{{else if rule .Args}} COMPREPLY=($(compgen -W "{{join $.Rules " "}}" -- "$cur")) ;;{{else if shells .Args}} COMPREPLY=($(compgen -W "{{join $.Shells " "}}" -- "$cur")) ;;{{else}} COMPREPLY=() ; compopt +o default 2>/dev/null ;;{{end}}{{end}}
	esac
}
complete -o default -F _h3a_check h3a-check
{{end}}`

const zshCompletion = `{{define "zsh"}}#compdef h3a-check
# zsh completion for h3a-check, made by "h3a-check completion zsh".
# Load it with: source <(h3a-check completion zsh), or save it as _h3a-check
# in a folder of $fpath.
_h3a_check() {
	local -a commands
	commands=({{range .Commands}} {{.Name}}{{end}})
	local cmd=check
	if (( CURRENT > 2 )) && (( ${commands[(Ie)$words[2]]} )); then
		cmd=$words[2]
		shift words
		(( CURRENT-- ))
	elif (( CURRENT == 2 )) && [[ $words[CURRENT] != -* ]]; then
		compadd -a commands
		_files
		return
	fi
	case $cmd in
{{- range .Commands}}
	{{.Name}})
		_arguments -S \
{{- range .Flags}}
			'{{if .Repeatable}}*{{end}}--{{.Name}}[{{zshDesc .Usage}}]{{if .Value}}:{{.Name}}:{{if .Choices}}({{join .Choices " "}}){{else if .Dir}}_files -/{{else if .File}}_files{{else}} {{end}}{{end}}' \
{{- end}}
			{{if paths .Args}}'*:path:_files'{{else if rule .Args}}'1:rule:({{join $.Rules " "}})'{{else if shells .Args}}'1:shell:({{join $.Shells " "}})'{{else}}&& return 0{{end}}
		;;{{end}}
	esac
}

if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
	_h3a_check "$@"
else
	compdef _h3a_check h3a-check
fi
{{end}}`

const fishCompletion = `{{define "fish"}}# fish completion for h3a-check, made by "h3a-check completion fish".
# Load it with: h3a-check completion fish | source
function __h3a_check_command
	set -l words (commandline -opc)
	if test (count $words) -ge 2; and contains -- $words[2]{{range .Commands}} {{.Name}}{{end}}
		echo $words[2]
	else
		echo check
	end
end
complete -c h3a-check -e
complete -c h3a-check -n 'test (count (commandline -opc)) -eq 1' -a '{{join (names .Commands) " "}}'
{{- range $c := .Commands}}
{{- range .Flags}}
complete -c h3a-check -n 'test (__h3a_check_command) = {{$c.Name}}' -l {{.Name}}{{if .Value}}{{if .Choices}} -x -a {{fishQuote (join .Choices " ")}}{{else if .Dir}} -x -a '(__fish_complete_directories)'{{else if .File}} -r -F{{else}} -x{{end}}{{end}} -d {{fishQuote .Usage}}
{{- end}}
{{- if rule .Args}}
complete -c h3a-check -n 'test (__h3a_check_command) = {{$c.Name}}' -x -a {{fishQuote (join $.Rules " ")}}
{{- else if shells .Args}}
complete -c h3a-check -n 'test (__h3a_check_command) = {{$c.Name}}' -x -a {{fishQuote (join $.Shells " ")}}
{{- else if not (paths .Args)}}
complete -c h3a-check -n 'test (__h3a_check_command) = {{$c.Name}}' -f
{{- end}}
{{- end}}
{{end}}`
