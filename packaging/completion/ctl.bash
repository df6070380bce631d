# bash completion for ctl (benchfleet). Installed as
# share/bash-completion/completions/ctl; bash-completion loads it on
# demand. Completes the commands, each command's options, hosts (the
# aliases of ~/.ssh/config and the inventory's names, from `ctl hosts
# --names`) where a command takes hosts, and run ids (`ctl list`) where it
# takes runs. Option lists are checked against each command's --help by
# tests/install/test_docs.py.

_ctl_ssh_hosts()
{
	# Host lines of ~/.ssh/config and the files it Includes directly;
	# patterns (*, ?, !) are not hosts.
	local f files=("$HOME/.ssh/config")
	[ -r "$HOME/.ssh/config" ] || return 0
	while read -r f; do
		f=${f/#\~/$HOME}
		case $f in /*) ;; *) f=$HOME/.ssh/$f ;; esac
		files+=($f)
	done < <(sed -n 's/^[[:space:]]*[Ii][Nn][Cc][Ll][Uu][Dd][Ee][[:space:]]\+//p' "$HOME/.ssh/config" 2>/dev/null)
	cat "${files[@]}" 2>/dev/null |
		sed -n 's/^[[:space:]]*[Hh][Oo][Ss][Tt][[:space:]]\+//p' |
		tr ' \t' '\n\n' | grep -v '[*?!]' | grep -v '^$'
}

_ctl_hosts()
{
	local dir=$1
	_ctl_ssh_hosts
	if [ -n "$dir" ]; then
		"$_ctl_cmd" hosts --names --hosts-dir "$dir" 2>/dev/null
	else
		"$_ctl_cmd" hosts --names 2>/dev/null
	fi
}

_ctl_runs()
{
	"$_ctl_cmd" list 2>/dev/null | cut -d' ' -f1
}

_ctl()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi
	local _ctl_cmd=${words[0]}
	local commands="run compare report history show list resolve where doctor clean hosts reference check"
	if [ "$cword" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
		return
	fi
	local cmd=${words[1]} opts= takes=

	# A value after an option that takes one.
	case $prev in
	--results|--hosts-dir)
		COMPREPLY=($(compgen -d -- "$cur")); return ;;
	-F|-o|--output|--prometheus|--node-labels)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--device)
		COMPREPLY=($(compgen -W "cpu cuda all" -- "$cur")); return ;;
	--dtypes)
		COMPREPLY=($(compgen -W "fp32 fp16 bf16 tf32 fp32,fp16,bf16 fp32,bf16" -- "$cur")); return ;;
	--rerun-failed)
		COMPREPLY=($(compgen -W "$(_ctl_runs)" -- "$cur")); return ;;
	--baseline)
		COMPREPLY=($(compgen -W "$(_ctl_hosts 2>/dev/null)" -- "$cur")); return ;;
	--size|--sizes|--iters|--cpu-iters|--warmup|--cpu-warmup|--jobs|\
	--timeout|--host-timeout|--bandwidth-mib|--tag|--last|--history|\
	--n|--min-change|--fail-on-regression|--dtype|--budget|--node)
		return ;;
	esac

	case $cmd in
	run)
		opts="--size --sizes --dtypes --device --iters --cpu-iters --warmup
		      --cpu-warmup --cold-cache --bandwidth-mib --no-bandwidth
		      --no-batching --jobs --concurrent-same-machine --baseline
		      --timeout --host-timeout --no-tui --tag --fail-on
		      --accept-new-host-keys -F --results --hosts-dir
		      --rerun-failed --help"
		takes=hosts ;;
	check)
		opts="--budget --size --dtypes --device --iters --drain --resume
		      --node --node-labels --prometheus --timeout
		      --accept-new-host-keys -F --results --hosts-dir --help"
		takes=hosts ;;
	where)
		opts="-F --timeout --accept-new-host-keys --hosts-dir --help"
		takes=hosts ;;
	doctor)
		opts="-F --timeout --accept-new-host-keys --hosts-dir --help"
		takes=hosts ;;
	clean)
		opts="--dry-run --keep-current -F --timeout --accept-new-host-keys
		      --hosts-dir --help"
		takes=hosts ;;
	resolve)
		opts="-F --help"
		takes=ssh ;;
	compare)
		opts="--last --json --csv --samples --benchstat
		      --fail-on-regression --results --hosts-dir --help"
		takes=runs ;;
	history)
		opts="--device --dtype --n --last --min-change --fail-on-regression
		      --json --results --help"
		takes=hosts ;;
	report)
		opts="--last -o --output --history --results --hosts-dir --help"
		takes=runs ;;
	show)
		opts="--results --hosts-dir --fail-on --help"
		takes=runs ;;
	list)
		opts="--last --results --help" ;;
	hosts)
		opts="--names --hosts-dir --help" ;;
	reference)
		opts="--results --hosts-dir --to --force --unreliable --help"
		takes=runs ;;
	*)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	# The --hosts-dir given on this line, for the inventory's names.
	local i dir=
	for ((i = 2; i < cword; i++)); do
		[ "${words[i]}" = --hosts-dir ] && dir=${words[i+1]}
	done
	case $takes in
	hosts) COMPREPLY=($(compgen -W "$(_ctl_hosts "$dir")" -- "$cur")) ;;
	ssh) COMPREPLY=($(compgen -W "$(_ctl_ssh_hosts)" -- "$cur")) ;;
	runs) COMPREPLY=($(compgen -W "$(_ctl_runs) $(_ctl_hosts)" -- "$cur")) ;;
	esac
}
complete -F _ctl ctl
