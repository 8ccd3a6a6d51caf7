# ptyhost shell integration for zsh: marks each prompt and command for
# the terminal (OSC 133 A/B/C/D, with the command line as VS Code's OSC
# 633;E), so viewers can list commands, jump between them and see their
# exit status. Load it from ~/.zshrc:
#   eval "$(ptyhost shell-integration zsh)"
if [[ -o interactive && -z ${__ptyhost_marks-} ]]; then
__ptyhost_marks=1
__ptyhost_ran=

__ptyhost_escape() {
	local s=$1 out= c i
	for ((i = 1; i <= ${#s}; i++)); do
		c=${s[i]}
		case $c in
		\\) out+='\\' ;;
		\;) out+='\x3b' ;;
		[[:cntrl:]]) out+=$(printf '\\x%02x' "'$c") ;;
		*) out+=$c ;;
		esac
	done
	print -rn -- "$out"
}

__ptyhost_precmd() {
	local st=$?
	if [[ -n $__ptyhost_ran ]]; then
		printf '\e]133;D;%s\a' "$st"
	fi
	__ptyhost_ran=
	printf '\e]133;A\a'
	[[ $PS1 == *'133;B'* ]] || PS1+=$'%{\e]133;B\a%}'
}

__ptyhost_preexec() {
	__ptyhost_ran=1
	printf '\e]633;E;%s\a\e]133;C\a' "$(__ptyhost_escape "$1")"
}

autoload -Uz add-zsh-hook
add-zsh-hook precmd __ptyhost_precmd
add-zsh-hook preexec __ptyhost_preexec
fi
