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

test_expect_success 'more drivers: setup' '
	git init -q d && cd d &&
	cat >a.m <<\EOF &&
@interface Foo : NSObject
- (void)target;
@end
@implementation Foo
- (void) doThing:(int)x {
    if (x) { target(); }
    return target;
}
+ (id)make {
    while (1) target;
}
static int helper(int target)
{
    for (;;) target++;
}
@end
EOF
	cat >a.kt <<\EOF &&
package x
class Foo {
    private fun bar(): Int {
        return target
    }
    Fun Upper() = target
    interface I { val target: Int }
}
data class D(val target: Int)
EOF
	cat >a.scm <<\EOF &&
(define (foo x)
  (target x))
(define-syntax bar
  (target))
  (defstruct s target)
(library (x y)
  (target))
(let ((target 1)) target)
EOF
	cat >a.mm <<\EOF &&
function y = f(x)
  y = target;
end
%% Section
target
% comment target
classdef C
  target
## octave section
target
EOF
	cat >a.pas <<\EOF &&
unit U;
interface
procedure P;
implementation
procedure P;
begin
  target;
end;
function F: Integer;
begin
  target;
end;
type T = class
  target: Integer;
end;
constructor T.Create;
begin target; end;
EOF
	cat >a.ex <<\EOF &&
defmodule M do
  def f(x) do
    target
  end
  defp g, do: target
  defmacro m do target end
  test "x" do
    target
  end
end
EOF
	cat >a.adb <<\EOF &&
with Ada.Text_IO;
package body P is
   procedure Foo is
   begin
      Target;
   end Foo;
   function Bar return Integer renames Baz;
   Function Qux return Integer is
   begin
      return Target;
   end;
   task T is new X;
   TASK body W is begin target; end;
end P;
EOF
	cat >a.bib <<\EOF &&
@article{key1,
  title = {target},
}
@Book{ key2 ,
  author = {target}
}
@misc{,
 note = target
}
EOF
	cat >a.fountain <<\EOF &&
INT. HOUSE - DAY

target speaks.

EXT. STREET
target again
.FORCED HEADING
target
int/ext car
target
EOF
	cat >a.f90 <<\EOF &&
program main
  call target()
contains
  subroutine sub(x)
    target = 1
  end subroutine sub
  integer function fn(y)
    fn = target
  END FUNCTION fn
  module procedure mp
    target
! comment target
C old comment target
end program
EOF
	cat >a.cs <<\EOF &&
namespace N
{
    public class C
    {
        public int Target { get; set; }
        public static void M(int x)
        {
            if (x > 0) return target;
            target();
        }
        private List<int> Items
        {
            get { return target; }
        }
    }
    struct S { int target; }
}
EOF
	cat >.gitattributes <<\EOF &&
*.m diff=objc
*.kt diff=kotlin
*.scm diff=scheme
*.mm diff=matlab
*.pas diff=pascal
*.ex diff=elixir
*.adb diff=ada
*.bib diff=bibtex
*.fountain diff=fountain
*.f90 diff=fortran
*.cs diff=csharp
EOF
	git add . && git commit -qm d
'

test_expect_success 'more drivers: -p, -W, -p -C1' '
	cd d && compare grep -n -p -i target && compare grep -n -W -i target &&
	compare grep -p -C1 -i target && compare grep -W target
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
