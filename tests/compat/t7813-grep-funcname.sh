#!/bin/sh
# git grep -p / -W with the built-in diff drivers and a UTF-8 locale:
# function lines must be the ones git 2.39 finds.
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup' '
	git init -q r && cd r &&
	cat >a.py <<-\EOF &&
	import os

	class Foo(Base):
	    x = 1

	    def method(self):
	        return target

	async def run():
	    target = 2
	def_not = target
	EOF
	cat >a.rs <<-\EOF &&
	use std::io;

	pub(crate) struct Thing {
	    target: u8,
	}

	impl Thing {
	    pub fn get(&self) -> u8 {
	        self.target
	    }
	}

	fn helper() { let target = 1; }
	pub async fn other() -> u8 { target }
	macro_rules! m { () => { target } }
	EOF
	cat >a.go <<-\EOF &&
	package main

	type T struct {
		target int
	}

	func (t *T) Get() int {
		return t.target
	}

	func main() {
		target := 1
	}
	EOF
	cat >A.java <<-\EOF &&
	public class A {
	    private int target;

	    public static void main(String[] args) {
	        if (target > 0) {
	            return;
	        }
	        format(target);
	    }

	    List<String> items(int x) {
	        return target;
	    }
	}
	EOF
	cat >a.sh <<-\EOF &&
	#!/bin/sh
	foo() {
		echo target
	}
	function bar {
		echo target
	}
	baz ( ) (
		echo target
	)
	echo target
	EOF
	cat >a.pl <<-\EOF &&
	package Foo;

	sub new {
	    my $target = 1;
	}

	sub proto($$) { target() }
	BEGIN {
	    target();
	}
	=head1 NAME

	target here
	EOF
	cat >a.php <<-\EOF &&
	<?php
	final class K {
	    public static function f() {
	        return $target;
	    }
	}
	function g() { $target = 1; }
	EOF
	cat >a.rb <<-\EOF &&
	module M
	  class C
	    def m
	      target
	    end
	  end
	end
	EOF
	cat >a.md <<-\EOF &&
	# Title

	target one

	  ## Indented heading
	target two
	#nospace target
	EOF
	cat >a.tex <<-\EOF &&
	\documentclass{article}
	\section{Intro}
	target
	\subsection*{More}
	target again
	\chapter{C} target
	EOF
	cat >a.html <<-\EOF &&
	<html>
	<h1>Head</h1>
	<p>target</p>
	  <H2 class="x">Sub</H2>
	<p>target</p>
	EOF
	cat >a.c <<-\EOF &&
	#include <x.h>

	static int f(void)
	{
	public:
		int target;
	label:	/* c */
		return target;
	}
	::g()
	{
		target();
	}
	EOF
	cat >a.dts <<-\EOF &&
	/dts-v1/;
	/ {
		model = "target";
		cpus {
			target: cpu@0 {
				reg = <0>;
			};
		};
	};
	&uart0 {
		status = "target";
	};
	EOF
	cp a.c a.cc && cp a.py b.txt &&
	cat >.gitattributes <<-\EOF &&
	*.py diff=python
	*.rs diff=rust
	*.go diff=golang
	*.java diff=java
	*.sh diff=bash
	*.pl diff=perl
	*.php diff=php
	*.rb diff=ruby
	*.md diff=markdown
	*.tex diff=tex
	*.html diff=html
	*.c diff=cpp
	*.cc diff=nosuchdriver
	*.dts diff=dts
	EOF
	git add . && git commit -qm one
'

test_expect_success 'grep -p with each driver' '
	cd r && compare grep -n -p target
'

test_expect_success 'grep -W with each driver' '
	cd r && compare grep -n -W target
'

test_expect_success 'grep -p -C1 and -W -B1, --cached and HEAD' '
	cd r && compare grep -p -C1 target && compare grep -W -B1 target &&
	compare grep --cached -p target && compare grep -p target HEAD &&
	compare grep -W target HEAD^{tree}
'

test_expect_success 'UTF-8 locale: regexes, -i, -w on multibyte and invalid bytes' '
	cd r && printf "caf\303\251 x\nCAF\303\211 y\nna\357ve z\na\303\251b\naxb\nab\n\303\251t\303\251\nk \342\204\252 s \305\277\n" >u.txt &&
	git add u.txt && export LC_ALL=C.UTF-8 &&
	for p in "a.b" "a.*b" "caf." "^na.ve" "x\\{1\\}" "\\(a.\\)*b" "K" "S" "[[:alpha:]]b" "\303\251" "caf\303\251"; do
		compare grep -n -e "$p" -- u.txt && compare grep -n -i -e "$p" -- u.txt &&
		compare grep -n -o -e "$p" -- u.txt || return 1
	done &&
	for p in "a.b" "o{1}" "(a|x).b" "a.+b" "\303\251t."; do
		compare grep -c -E -e "$p" -- u.txt && compare grep -n -P -e "$p" -- u.txt &&
		compare grep -n -i -E -e "$p" -- u.txt || return 1
	done &&
	compare grep -i -F -e "CAF\303\211" -- u.txt && compare grep -w -i -e "k" -- u.txt
'

test_done
