package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"wr/wire"
)

// nameArgs says which verbs take session names, and where: "first" for
// the first argument only (the rest is text, a new name or a file), "all"
// for every argument.
var nameArgs = map[string]string{
	"attach": "first", "send": "first", "capture": "first", "wait": "first",
	"has": "first", "rename": "first", "record": "first", "env": "first",
	"kill": "all", "detach": "all",
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a completion script: source <(wr completion bash), or zsh, or fish",
		ArgsUsage: "bash|zsh|fish",
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return &usageError{errors.New("completion takes the shell: bash, zsh or fish")}
			}
			spec := completionSpec(c.App)
			switch sh := c.Args().First(); sh {
			case "bash":
				writeBash(stdout, spec)
			case "zsh":
				fmt.Fprint(stdout, "#compdef wr\n# zsh completion for wr: zsh runs the bash one.\nautoload -U +X bashcompinit && bashcompinit\n")
				writeBash(stdout, spec)
			case "fish":
				writeFish(stdout, spec)
			default:
				return &usageError{fmt.Errorf("no completion for %q: bash, zsh or fish", sh)}
			}
			return nil
		},
	}
}

// verbSpec is what completes after one verb.
type verbSpec struct {
	name  string
	usage string
	flags []string // as typed: --long and -x
	names string   // nameArgs
	subs  []string // subcommands (server)
}

func completionSpec(app *cli.App) []verbSpec {
	var spec []verbSpec
	for _, c := range app.Commands {
		if c.Hidden || c.Name == "help" {
			continue
		}
		v := verbSpec{name: c.Name, usage: c.Usage, names: nameArgs[c.Name]}
		for _, f := range c.Flags {
			if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
				continue
			}
			for _, n := range f.Names() {
				v.flags = append(v.flags, dashed(n))
			}
		}
		for _, s := range c.Subcommands {
			v.subs = append(v.subs, s.Name)
		}
		switch c.Name {
		case "completion":
			v.subs = []string{"bash", "zsh", "fish"}
		}
		spec = append(spec, v)
	}
	spec = append(spec, verbSpec{name: "help", usage: "show the verbs, or one verb's help"})
	sort.Slice(spec, func(i, j int) bool { return spec[i].name < spec[j].name })
	return spec
}

func verbList(spec []verbSpec) string {
	var names []string
	for _, v := range spec {
		names = append(names, v.name)
	}
	return strings.Join(names, " ")
}

// writeBash writes the bash completion function. Session names are asked
// of the server when completing (wr __names, with the --socket on the
// line): no server, no names and no error.
func writeBash(w io.Writer, spec []verbSpec) {
	fmt.Fprintf(w, `# bash completion for wr: source <(wr completion bash)
_wr() {
    local cur="${COMP_WORDS[COMP_CWORD]}" verb="" sub="" i n=0 dashdash="" key=""
    local -a sock=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        local w="${COMP_WORDS[i]}"
        if [[ -n $dashdash ]]; then n=$((n + 1)); continue; fi
        case "$w" in
        --) dashdash=1 ;;
        --socket|-socket) sock=(--socket "${COMP_WORDS[i+1]}"); i=$((i + 1)) ;;
        --socket=*) sock=("$w") ;;
        --key) key=1 ;;
        --timeout|--detach-key|--scrollback|--keep|--restore|--record) [[ -n $verb ]] && i=$((i + 1)) ;;
        -*) ;;
        *) if [[ -z $verb ]]; then verb="$w"; else n=$((n + 1)); fi ;;
        esac
    done
    if [[ -z $verb ]]; then
        COMPREPLY=($(compgen -W "%s --socket --help --version" -- "$cur"))
        return
    fi
    local flags="" names="" subs=""
    case "$verb" in
`, verbList(spec))
	for _, v := range spec {
		subs := strings.Join(v.subs, " ")
		if v.name == "help" {
			subs = verbList(spec)
		}
		fmt.Fprintf(w, "    %s) flags=%q; names=%q; subs=%q ;;\n", v.name, strings.Join(v.flags, " ")+" --help", v.names, subs)
	}
	fmt.Fprintf(w, `    esac
    if [[ -n $dashdash ]]; then
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags --socket" -- "$cur"))
        return
    fi
    if [[ -n $subs && $n -eq 0 ]]; then
        COMPREPLY=($(compgen -W "$subs" -- "$cur"))
        return
    fi
    if [[ $verb == send && -n $key && $n -ge 1 ]]; then
        COMPREPLY=($(compgen -W "%s" -- "$cur"))
        return
    fi
    if [[ $names == all || ($names == first && $n -eq 0) ]]; then
        COMPREPLY=($(compgen -W "$(command wr "${sock[@]}" __names 2>/dev/null)" -- "$cur"))
        return
    fi
    if [[ $verb == record && $n -eq 1 ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -F _wr wr
`, strings.Join(wire.Keys(), " "))
}

// writeFish writes the fish completions.
func writeFish(w io.Writer, spec []verbSpec) {
	fmt.Fprintf(w, `# fish completion for wr: wr completion fish | source
function __wr_names
    set -l sock
    set -l toks (commandline -opc)
    for i in (seq (count $toks))
        if test "$toks[$i]" = --socket; and test $i -lt (count $toks)
            set sock --socket $toks[(math $i + 1)]
        else if string match -q -- '--socket=*' $toks[$i]
            set sock $toks[$i]
        end
    end
    command wr $sock __names 2>/dev/null
end
function __wr_args_after_verb
    # how many arguments follow the verb (flags and --socket's value aside)
    set -l toks (commandline -opc)
    set -l n 0
    set -l verb ""
    set -l skip 0
    for t in $toks[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $t
            case --socket --timeout --detach-key --scrollback --keep --restore --record
                set skip 1
            case '-*'
            case '*'
                if test -z "$verb"
                    set verb $t
                else
                    set n (math $n + 1)
                end
        end
    end
    echo $n
end
complete -c wr -f
complete -c wr -n __fish_use_subcommand -l socket -r -d 'server socket'
complete -c wr -n __fish_use_subcommand -l version -d 'print the version'
`)
	for _, v := range spec {
		fmt.Fprintf(w, "complete -c wr -n __fish_use_subcommand -a %s -d %s\n", v.name, fishQuote(v.usage))
		cond := "__fish_seen_subcommand_from " + v.name
		for _, f := range v.flags {
			if strings.HasPrefix(f, "--") {
				fmt.Fprintf(w, "complete -c wr -n %q -l %s\n", cond, f[2:])
			} else {
				fmt.Fprintf(w, "complete -c wr -n %q -s %s\n", cond, f[1:])
			}
		}
		switch {
		case v.names == "all":
			fmt.Fprintf(w, "complete -c wr -n %q -a '(__wr_names)'\n", cond)
		case v.names == "first":
			fmt.Fprintf(w, "complete -c wr -n %q -a '(__wr_names)'\n", cond+"; and test (__wr_args_after_verb) = 0")
		}
		if len(v.subs) > 0 {
			fmt.Fprintf(w, "complete -c wr -n %q -a %q\n", cond+"; and test (__wr_args_after_verb) = 0", strings.Join(v.subs, " "))
		}
		if v.name == "help" {
			fmt.Fprintf(w, "complete -c wr -n %q -a %q\n", cond, verbList(spec))
		}
		if v.name == "record" {
			fmt.Fprintf(w, "complete -c wr -n %q -F\n", cond+"; and test (__wr_args_after_verb) = 1")
		}
	}
	fmt.Fprintf(w, "complete -c wr -n '__fish_seen_subcommand_from send; and __fish_contains_opt key' -a %q\n", strings.Join(wire.Keys(), " "))
}

// fishQuote quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
