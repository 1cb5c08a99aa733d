# bash completion for kitec, kite-run and kite-test: their options, the values some of
# them take, Kite sources (*.kite) for kitec and for kite-run, and any file
# for kite-run's program (artifacts have no suffix) and its @file arguments.
# Installed as share/bash-completion/completions/kitec and .../kite-run;
# by hand: source tools/completion/kite.bash

# Files matching the glob $2 (all files when empty) and directories, for the
# word $1.
_kite_files() {
  local IFS=$'\n'
  if declare -F _filedir >/dev/null; then
    if [[ -n $2 ]]; then _filedir "$2"; else _filedir; fi
    return
  fi
  compopt -o filenames 2>/dev/null
  if [[ -n $2 ]]; then
    COMPREPLY=($(compgen -d -- "$1") $(compgen -f -X "!*.$2" -- "$1"))
  else
    COMPREPLY=($(compgen -f -- "$1"))
  fi
}

# The word $1: one of the options $2 if it starts with '-', else a Kite
# source (or a folder).
_kite_option_or_source() {
  if [[ $1 == -* ]]; then
    COMPREPLY=($(compgen -W "$2" -- "$1"))
    return
  fi
  _kite_files "$1" kite
}

_kitec() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local options="-o --output -O0 -O1 -O2 -O3 --no-opt --no-bounds-checks --dump-after --dump-ast --dump-checked --dump-closures --dump-anf
    -Wall -Werror -Wno-error -w -Wshadow -Wno-shadow -Wunused -Wno-unused
    -Wunordered-read -Wno-unordered-read -Wprint-format -Wno-print-format
    --dump-ntg --dump-ntg=text --dump-ntg=dot --dump-cps --emit-cl --version -h --help"
  case $prev in
    -o | --output)
      _kite_files "$cur"
      return
      ;;
    --dump-after)
      # The stages, as kitec --help lists them under --dump-after.
      local stages=$(kitec --help 2>/dev/null | awk '/^  --dump-after/ { on = 1; next } on && /^  -/ { on = 0 } on { print $1 }')
      COMPREPLY=($(compgen -W "$stages" -- "$cur"))
      return
      ;;
  esac
  _kite_option_or_source "$cur" "$options"
}

_kite_run() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local options="--device --list-devices --stats -t --time --records --deque --deque-start --workers
    --lanes --local-queue --lane-blocks --hand-blocks --record-align --max-registers --map-kernel-min --map-kernel-width --print-buffer --heap --trace --timeout --no-cache --probe
    --version -h --help"
  case $prev in
    --device)
      COMPREPLY=($(compgen -W "cpu gpu" -- "$cur"))
      return
      ;;
    --trace)
      _kite_files "$cur"
      return
      ;;
    --records | --deque | --deque-start | --workers | --lanes | --local-queue | --lane-blocks | --hand-blocks | --record-align | --max-registers | --map-kernel-min | --map-kernel-width | --print-buffer | --heap | --timeout)
      return  # a number or a size
      ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
    return
  fi
  if [[ $cur == @* ]]; then  # an array argument read from a file
    local word=${cur#@}
    _kite_files "$word"
    COMPREPLY=("${COMPREPLY[@]/#/@}")
    return
  fi
  _kite_files "$cur"
}

_kite_test() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local options="--device -j --jobs --kitec-option --races --version -h --help"
  case $prev in
    --device)
      COMPREPLY=($(compgen -W "cpu gpu" -- "$cur"))
      return
      ;;
    -j | --jobs | --kitec-option)
      return
      ;;
  esac
  _kite_option_or_source "$cur" "$options"
}

complete -F _kitec kitec
complete -F _kite_run kite-run
complete -F _kite_test kite-test
