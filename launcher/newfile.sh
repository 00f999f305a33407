# launcher/newfile.sh: the one way collbench-run and the scripts it sources write a file
# (sourced; functions only). Every file they leave behind (the --sbatch script, a results
# folder's placement.txt, rankfile, command.txt, incomplete.txt,
# output.txt, the build logs) is written by cb_newfile or cb_newfile_open; any other redirection
# in launcher/ goes to a fresh mktemp temporary (collbench-run's private $tmpdir) or /dev/null.
#
# A file is made as a new file in its final folder: the content goes into a temporary that
# mktemp creates beside the name (O_EXCL: a link planted at a temporary's name is never
# followed), then the temporary is hard-linked at the name (link(2) fails when anything is
# there already, a dangling symlink included, and never follows a link) and removed. Nothing is
# ever opened for writing by the final name, so a symlink, device or FIFO planted there is never
# written through. With --replace an existing regular file at the name is replaced (rename(2)
# over the name: the old inode, and anything hard-linked to it, is untouched); a symlink,
# device, FIFO, socket or folder there is refused.
#
#   cb_newfile [--replace] [--mode OCTAL] [--max BYTES] [--cut] PATH < CONTENT
#       CONTENT (stdin) becomes PATH. Over --max bytes (default CB_NEWFILE_MAX, 16 MiB) nothing
#       is written and it fails, or with --cut PATH keeps the first BYTES (logs). --mode sets
#       the permissions (default 0666 less the umask, as a plain `>` would).
#   cb_newfile_open [--replace] VAR PATH
#       a new, empty PATH opened for writing on a file descriptor whose number goes into VAR,
#       for output streamed while a run lasts (collbench-run caps what it writes there).
# Both return 0, or 1 with one line on stderr: "WHO: cannot write 'PATH': why" (WHO:
# $CB_NEWFILE_WHO, default collbench-run; tools/device/common.sh uses this writer too).
#   cb_quote VALUE
#       VALUE as the scripts' messages show a name or value: 'as is' when printable (at most 200
#       characters), else shell-quoted ($'a\nb'), so a message stays one line.
CB_NEWFILE_MAX=$((16 << 20))

cb_quote() {
  if [[ "$1" =~ ^[[:print:]]{0,200}$ ]] && [[ "$1" != *\'* ]]; then printf "'%s'" "$1"; else printf '%q' "${1:0:200}"; fi
}

# cb_newfile_target PATH REPLACE: the checks made before any byte is written (0, or 1 with why
# in cb_newfile_why).
cb_newfile_target() {
  local path=$1 replace=$2 folder
  cb_newfile_why=""
  case $path in
    "") cb_newfile_why="an empty file name" ;;
    */ | */. | */.. | . | ..) cb_newfile_why="names a folder, not a file" ;;
    *$'\n'* | *$'\r'*) cb_newfile_why="a file name with a line break" ;;
  esac
  [ -z "$cb_newfile_why" ] || return 1
  folder=$(dirname -- "$path")
  if [ ! -d "$folder" ]; then
    cb_newfile_why="its folder does not exist"
  elif [ -L "$path" ]; then
    cb_newfile_why="a symbolic link is there (never written through)"
  elif [ -d "$path" ]; then
    cb_newfile_why="a folder is there"
  elif [ -e "$path" ] && [ ! -f "$path" ]; then
    cb_newfile_why="something that is not a regular file is there (a device, FIFO or socket)"
  elif [ -e "$path" ] && [ "$replace" = 0 ]; then
    cb_newfile_why="it exists already"
  fi
  [ -z "$cb_newfile_why" ]
}

# cb_newfile_place TMP PATH REPLACE: TMP (in PATH's folder) becomes PATH, or is removed.
cb_newfile_place() {
  local tmp=$1 path=$2 replace=$3
  if ln -T -- "$tmp" "$path" 2> /dev/null; then
    rm -f -- "$tmp"
    return 0
  fi
  # there is something at PATH now: a regular file may be replaced (--replace), nothing else
  if [ "$replace" = 1 ] && [ -f "$path" ] && [ ! -L "$path" ] && mv -fT -- "$tmp" "$path" 2> /dev/null; then
    return 0
  fi
  rm -f -- "$tmp"
  cb_newfile_target "$path" "$replace" || return 1
  cb_newfile_why="cannot link a new file at that name"
  return 1
}

cb_newfile_fail() { echo "${CB_NEWFILE_WHO:-collbench-run}: cannot write $(cb_quote "$1"): $cb_newfile_why" >&2; return 1; }

cb_newfile() {
  # in a subshell that ignores the terminal's signals: a Ctrl-C meant for the run must not kill
  # mktemp or ln halfway through a file the run's evidence depends on (incomplete.txt)
  (
    trap '' INT TERM HUP
    cb_newfile_write "$@"
  )
}

cb_newfile_write() {
  local replace=0 mode="" max=$CB_NEWFILE_MAX cut=0 path tmp size
  while [ $# -gt 1 ]; do
    case $1 in
      --replace) replace=1; shift ;;
      --cut) cut=1; shift ;;
      --mode) mode=$2; shift 2 ;;
      --max) max=$2; shift 2 ;;
      *) break ;;
    esac
  done
  path=$1
  cb_newfile_target "$path" "$replace" || { cb_newfile_fail "$path"; return 1; }
  [ -n "$mode" ] || mode=$(printf '%o' $((0666 & ~$(umask))))
  tmp=$(mktemp -- "$(dirname -- "$path")/.$(basename -- "$path").XXXXXX" 2> /dev/null) ||
    { cb_newfile_why="cannot create a file in its folder"; cb_newfile_fail "$path"; return 1; }
  if ! head -c "$((max + 1))" > "$tmp" || ! chmod -- "$mode" "$tmp"; then
    rm -f -- "$tmp"
    cb_newfile_why="cannot write into its folder"
    cb_newfile_fail "$path"
    return 1
  fi
  size=$(stat -c %s -- "$tmp")
  if [ "$size" -gt "$max" ]; then
    if [ "$cut" = 0 ]; then
      rm -f -- "$tmp"
      cb_newfile_why="its content is over the $max-byte limit"
      cb_newfile_fail "$path"
      return 1
    fi
    truncate -s "$max" -- "$tmp"
  fi
  cb_newfile_place "$tmp" "$path" "$replace" || { cb_newfile_fail "$path"; return 1; }
}

cb_newfile_open() {
  # (its locals are prefixed: VAR is the caller's, and may be named like one of them)
  local nf_replace=0 nf_var nf_path nf_tmp nf_fd
  [ "$1" != --replace ] || { nf_replace=1; shift; }
  nf_var=$1 nf_path=$2
  cb_newfile_target "$nf_path" "$nf_replace" || { cb_newfile_fail "$nf_path"; return 1; }
  nf_tmp=$(mktemp -- "$(dirname -- "$nf_path")/.$(basename -- "$nf_path").XXXXXX" 2> /dev/null) ||
    { cb_newfile_why="cannot create a file in its folder"; cb_newfile_fail "$nf_path"; return 1; }
  chmod -- "$(printf '%o' $((0666 & ~$(umask))))" "$nf_tmp"
  exec {nf_fd}>> "$nf_tmp"
  cb_newfile_place "$nf_tmp" "$nf_path" "$nf_replace" || { exec {nf_fd}>&-; cb_newfile_fail "$nf_path"; return 1; }
  printf -v "$nf_var" %s "$nf_fd"
}
