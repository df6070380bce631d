/*
 * Unit tests for controller/remote/remote_cert.c: OpenSSH host
 * certificates read, their CA signatures verified (Ed25519, RSA with
 * SHA-512 and SHA-256, ECDSA P-256 and P-384 CAs; Ed25519, RSA and ECDSA
 * certified keys) and judged as OpenSSH 9.2's sshkey_cert_check_host()
 * judges them; every truncation, a changed byte and a trailing byte
 * refused. The vectors were made with OpenSSH 9.2p1's ssh-keygen:
 *
 *   ssh-keygen -s CA -I id-CA -h -n 127.0.0.1,example.test -z 7 host.pub
 *   (CA: ed25519, rsa 2048, ecdsa 256, ecdsa 384; validity forever)
 *   -V 20000101:20010101 (expired), -V 22000101:22010101 (not yet
 *   valid), no -h (a user certificate), no -n (no principals),
 *   -O force-command=/bin/true (a critical option), -t ssh-rsa (SHA-1),
 *   an RSA host key signed by the Ed25519 CA, an ECDSA host key signed
 *   by the RSA CA with -t rsa-sha2-256.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "remote/remote_cert.h"

static const char KEY_HOST[] =
	"AAAAC3NzaC1lZDI1NTE5AAAAICxqc0LpoqdPVH9A/In0ImRUwXmXE2m7LDoQSD25"
	"FZFo";
static const char KEY_HOSTRSA[] =
	"AAAAB3NzaC1yc2EAAAADAQABAAABAQCt4OWTLA7TJt8bhyYqXBlWJqAjPIqGFg5h"
	"JQxp0xHZfBDlhLmmmGSdUhpFP4uFHcV1exZkfGOkG1/bj52jn4Dq1gLB5GfR7972"
	"7XenzoGSPO36jSLHTpsnCAIoo1h01TKGRrdwwIaxpilqY+x9n1CwU7ADo3eEdyxW"
	"0T7teeGEL2ybCfikJ6nOAkAkVfhPWMu5lAfzkQay1hkWa5Xomnjf8p6LIbvGghqM"
	"oklkKE7frkla7r2E+JRDmd8Gei6RyonuiQGMFhPAgUfO0A8aCKylWn1dI4MphUXc"
	"rrFCw4YeJVZUDvIxq1lQPNNwP+ymGh/mDUJfnuELCGO8EudaIu/L";
static const char KEY_HOSTEC[] =
	"AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBPDLpVxzHDB3"
	"HkyWSoQjRVFPVNfT0tsst7l4NgM8m4m2eD1tQGbF0pRFifACL92rU/eYwT36sDrJ"
	"R6Zr9kx1SzM=";
static const char KEY_CA_ED[] =
	"AAAAC3NzaC1lZDI1NTE5AAAAIGxMBLI9p5jcMzGwIA1NptvzrY8/93Ji2BeeUmi+"
	"EUl3";
static const char KEY_CA_RSA[] =
	"AAAAB3NzaC1yc2EAAAADAQABAAABAQC46dPs/5uy4D0r6NH+niNWjAfCsiSYK5eR"
	"5WKRBdhchmZF54nCRu3Ok+SSqrTaRBXQzN8ZnOmp/TEUHycwgBXtiIZtdvNKNrsx"
	"lNsy0aeuE90Im2rr7gcYVIFUteQdHLwYPW0pQwR6zfnXqzVZla3w1h1Gk6X0+kRs"
	"gMtidQdU26JTQuaHMeVyHZScBPvD6aFOwh2h41OsLNuon4Lkh0fwUDNIKbCQacSX"
	"67H31x38Z6oywpLWGEudgcjfimBaHFRAYpZdFb2OehOHbe261HU+omBE7niH8Xmn"
	"7CfAOMLHuP11WN5fx22nwDdic6y4btrF4duR7/Pc+WVrEfc+yPil";
static const char KEY_CA_EC[] =
	"AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBEhDWx/9XGg8"
	"eclXO+rcN3ublJmDjfNbmehurU3Ga16uN12LAGxJwn9ktlGPf7osHZRqBTFVnVuP"
	"S+FlvQf7+/w=";
static const char KEY_CA_EC384[] =
	"AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBBl8jFfF0E0G"
	"5E9Ci11i+Efd1NTJWhb5dhjuq1dOINKrM9rP/ieYHO4VuKo9fXxaeuvHmM+Al/iG"
	"oESFm11k3ncGozAxIFAEmwSiSx6BhPu+0CLMEQ/XEmbyyTT7jiTUUw==";
static const char CERT_H_CA_ED[] =
	"AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIPPx2dHArZlC"
	"H/SXO+Gra0aPkNqOHAX3hdH4hnYO+xanAAAAICxqc0LpoqdPVH9A/In0ImRUwXmX"
	"E2m7LDoQSD25FZFoAAAAAAAAAAcAAAACAAAACGlkLWNhX2VkAAAAHQAAAAkxMjcu"
	"MC4wLjEAAAAMZXhhbXBsZS50ZXN0AAAAAAAAAAD//////////wAAAAAAAAAAAAAA"
	"AAAAADMAAAALc3NoLWVkMjU1MTkAAAAgbEwEsj2nmNwzMbAgDU2m2/Otjz/3cmLY"
	"F55SaL4RSXcAAABTAAAAC3NzaC1lZDI1NTE5AAAAQKfP14NNAoutaDXEq/ZfYFGr"
	"u4kF8/uH/v6fLTaou+EXmV9gn0bwWrPCXyTUwV4t2PRcMhcFA66XC8R6xNYPFQ4=";
static const char CERT_H_CA_RSA[] =
	"AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIAdzUONHVjxP"
	"qmIqNzbDBBerMKs4E2F2iXg6Ba6qjdhcAAAAICxqc0LpoqdPVH9A/In0ImRUwXmX"
	"E2m7LDoQSD25FZFoAAAAAAAAAAcAAAACAAAACWlkLWNhX3JzYQAAAB0AAAAJMTI3"
	"LjAuMC4xAAAADGV4YW1wbGUudGVzdAAAAAAAAAAA//////////8AAAAAAAAAAAAA"
	"AAAAAAEXAAAAB3NzaC1yc2EAAAADAQABAAABAQC46dPs/5uy4D0r6NH+niNWjAfC"
	"siSYK5eR5WKRBdhchmZF54nCRu3Ok+SSqrTaRBXQzN8ZnOmp/TEUHycwgBXtiIZt"
	"dvNKNrsxlNsy0aeuE90Im2rr7gcYVIFUteQdHLwYPW0pQwR6zfnXqzVZla3w1h1G"
	"k6X0+kRsgMtidQdU26JTQuaHMeVyHZScBPvD6aFOwh2h41OsLNuon4Lkh0fwUDNI"
	"KbCQacSX67H31x38Z6oywpLWGEudgcjfimBaHFRAYpZdFb2OehOHbe261HU+omBE"
	"7niH8Xmn7CfAOMLHuP11WN5fx22nwDdic6y4btrF4duR7/Pc+WVrEfc+yPilAAAB"
	"FAAAAAxyc2Etc2hhMi01MTIAAAEAexYBFI5ryLRl/7Ki2ORxcEYuPFUf1Z2pIIiJ"
	"FqI6v4sgHbCf++TnM/iuoqOxtXiUV05CHLg+fdE+U9C6bqTNcQcN96ZYiAm9/zUk"
	"mSuVrMEijnpk+VSUeBWVJEBXsrZXdGK5qaHXkFczWk68XrnwJbxIXqXca/1YluiN"
	"34O5/YFwJ0MYvppfPzrq/p25uVLj+oWU71xrkyFUY+beUKNJ9Qlr+CURb8Ucas8Q"
	"Bfid2lvmAelrjjyhlwNnUIga6Nu480yFcbjxDHRFfZjuIBtMFQ9AehvODPmMcJy+"
	"sn8Xxd+PTIOxg8aqDYnusSRvPsw9azE7nmin0kyyTw3Vhdr2YQ==";
static const char CERT_H_CA_EC[] =
	"AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIEAV2CQ/mUGQ"
	"0Hstg8Q6W2ul8dI06ek9lUzgJn18HRwnAAAAICxqc0LpoqdPVH9A/In0ImRUwXmX"
	"E2m7LDoQSD25FZFoAAAAAAAAAAcAAAACAAAACGlkLWNhX2VjAAAAHQAAAAkxMjcu"
	"MC4wLjEAAAAMZXhhbXBsZS50ZXN0AAAAAAAAAAD//////////wAAAAAAAAAAAAAA"
	"AAAAAGgAAAATZWNkc2Etc2hhMi1uaXN0cDI1NgAAAAhuaXN0cDI1NgAAAEEESENb"
	"H/1caDx5yVc76tw3e5uUmYON81uZ6G6tTcZrXq43XYsAbEnCf2S2UY9/uiwdlGoF"
	"MVWdW49L4WW9B/v7/AAAAGQAAAATZWNkc2Etc2hhMi1uaXN0cDI1NgAAAEkAAAAh"
	"AI/ttx82YrqXIUCIJCcxwuW+Qgtib5ZzGDxtftzMN8atAAAAIFIioBbUwaipMV2R"
	"Vxf8KVBEplm2QJwPsUyejkERB/bY";
static const char CERT_H_CA_EC384[] =
	"AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIGR2RfI5ikpo"
	"oBYetaE0bri2uZPjxg7v+sJyzsFpRex3AAAAICxqc0LpoqdPVH9A/In0ImRUwXmX"
	"E2m7LDoQSD25FZFoAAAAAAAAAAcAAAACAAAAC2lkLWNhX2VjMzg0AAAAHQAAAAkx"
	"MjcuMC4wLjEAAAAMZXhhbXBsZS50ZXN0AAAAAAAAAAD//////////wAAAAAAAAAA"
	"AAAAAAAAAIgAAAATZWNkc2Etc2hhMi1uaXN0cDM4NAAAAAhuaXN0cDM4NAAAAGEE"
	"GXyMV8XQTQbkT0KLXWL4R93U1MlaFvl2GO6rV04g0qsz2s/+J5gc7hW4qj19fFp6"
	"68eYz4CX+IagRIWbXWTedwajMDEgUASbBKJLHoGE+77QIswRD9cSZvLJNPuOJNRT"
	"AAAAhAAAABNlY2RzYS1zaGEyLW5pc3RwMzg0AAAAaQAAADB5BjV4a3ObFyuucByS"
	"U7YOu2IIiYIUhrTK7k98ziQPHPIg+O4LVkMMfwVbYrB9tQ0AAAAxAOkvtBHVfYYi"
	"tleYVA5ie1gQTeyVZqfnRCx4Es/f4+974iGtKOUVdpEthfRsLm+JlA==";
static const char CERT_H_EXPIRED[] =
	"AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAICE+juPihZxY"
	"y+PZryp4f1zKOLY0aT+s0ubOZIos5OImAAAAICxqc0LpoqdPVH9A/In0ImRUwXmX"
	"E2m7LDoQSD25FZFoAAAAAAAAAAAAAAACAAAAA2V4cAAAAA0AAAAJMTI3LjAuMC4x"
	"AAAAADhtQ4AAAAAAOk/IgAAAAAAAAAAAAAAAAAAAADMAAAALc3NoLWVkMjU1MTkA"
	"AAAgbEwEsj2nmNwzMbAgDU2m2/Otjz/3cmLYF55SaL4RSXcAAABTAAAAC3NzaC1l"
	"ZDI1NTE5AAAAQO7foKTMX6sbXtbLh5Sg/a6/PvjT1S463riDMfTLsipvp/on6147"
	"seFdoKuSunmAn/frmcknrZ2jOM5dkESEuAI=";
static const char CERT_H_FUTURE[] =
	"AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAICjzE9c4SkA7"
	"49QYGobdfRfn0vszouCIZHaK/l7NBLZZAAAAICxqc0LpoqdPVH9A/In0ImRUwXmX"
	"E2m7LDoQSD25FZFoAAAAAAAAAAAAAAACAAAAA2Z1dAAAAA0AAAAJMTI3LjAuMC4x"
	"AAAAAbCeGQAAAAABsn9MgAAAAAAAAAAAAAAAAAAAADMAAAALc3NoLWVkMjU1MTkA"
	"AAAgbEwEsj2nmNwzMbAgDU2m2/Otjz/3cmLYF55SaL4RSXcAAABTAAAAC3NzaC1l"
	"ZDI1NTE5AAAAQJbOEhIgnJk+ZpdJIyiOBSzjnIpJIih07aaLAbHiLBDTI6ELoGz2"
	"4OdGUmPBy2/zltkKmJXGGpmnqAqtgc7SWwg=";
static const char CERT_H_USER[] =
	"AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIK2O7PY4E8gZ"
	"oIqvnMCnhzwDjOn3/ICgJ/aWMiId7A1kAAAAICxqc0LpoqdPVH9A/In0ImRUwXmX"
	"E2m7LDoQSD25FZFoAAAAAAAAAAAAAAABAAAAA3VzcgAAAA0AAAAJMTI3LjAuMC4x"
	"AAAAAAAAAAD//////////wAAAAAAAACCAAAAFXBlcm1pdC1YMTEtZm9yd2FyZGlu"
	"ZwAAAAAAAAAXcGVybWl0LWFnZW50LWZvcndhcmRpbmcAAAAAAAAAFnBlcm1pdC1w"
	"b3J0LWZvcndhcmRpbmcAAAAAAAAACnBlcm1pdC1wdHkAAAAAAAAADnBlcm1pdC11"
	"c2VyLXJjAAAAAAAAAAAAAAAzAAAAC3NzaC1lZDI1NTE5AAAAIGxMBLI9p5jcMzGw"
	"IA1NptvzrY8/93Ji2BeeUmi+EUl3AAAAUwAAAAtzc2gtZWQyNTUxOQAAAEBrViCF"
	"ZVMgbx7rsOwbS4IIubNU3sB5M2zbEyj3/e6o45PvEatJ/ZeaZHUP1fWE49QRCQQy"
	"Kspboh2SIaKAhG8A";
static const char CERT_H_NOPRINC[] =
	"AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIHHqYGtVna88"
	"rv4ZeKn4ZdYCvbziBRLX2aNvkS2+GJ6mAAAAICxqc0LpoqdPVH9A/In0ImRUwXmX"
	"E2m7LDoQSD25FZFoAAAAAAAAAAAAAAACAAAAAm5wAAAAAAAAAAAAAAAA////////"
	"//8AAAAAAAAAAAAAAAAAAAAzAAAAC3NzaC1lZDI1NTE5AAAAIGxMBLI9p5jcMzGw"
	"IA1NptvzrY8/93Ji2BeeUmi+EUl3AAAAUwAAAAtzc2gtZWQyNTUxOQAAAEAykQsz"
	"wbIygJpEgGc05bhwWLE903b7NTD8z1laPsh5NQ9Hy74hTsIA65IFpnDoZZBk4BNC"
	"NC06Z5GbPcUQY28N";
static const char CERT_H_CRIT[] =
	"AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIOFQ4DuoVR8N"
	"mrVgiuwfbom0EjebNsUt7iUF1FwVvTgSAAAAICxqc0LpoqdPVH9A/In0ImRUwXmX"
	"E2m7LDoQSD25FZFoAAAAAAAAAAAAAAACAAAABGNyaXQAAAANAAAACTEyNy4wLjAu"
	"MQAAAAAAAAAA//////////8AAAAiAAAADWZvcmNlLWNvbW1hbmQAAAANAAAACS9i"
	"aW4vdHJ1ZQAAAAAAAAAAAAAAMwAAAAtzc2gtZWQyNTUxOQAAACBsTASyPaeY3DMx"
	"sCANTabb862PP/dyYtgXnlJovhFJdwAAAFMAAAALc3NoLWVkMjU1MTkAAABA5WpY"
	"EXpiQ8pOLASO0CeXvTxYrJrVgXg2kFjEOsimSNIWvJDxIkGQXeReZZNwcVlQ+bBn"
	"6pTnIUMC9oJAKs8LAg==";
static const char CERT_H_SHA1[] =
	"AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIOjmg1HNB+44"
	"Q5kFixOwHAr0kMB/fu8XuckR+zCzq1zKAAAAICxqc0LpoqdPVH9A/In0ImRUwXmX"
	"E2m7LDoQSD25FZFoAAAAAAAAAAAAAAACAAAABHNoYTEAAAANAAAACTEyNy4wLjAu"
	"MQAAAAAAAAAA//////////8AAAAAAAAAAAAAAAAAAAEXAAAAB3NzaC1yc2EAAAAD"
	"AQABAAABAQC46dPs/5uy4D0r6NH+niNWjAfCsiSYK5eR5WKRBdhchmZF54nCRu3O"
	"k+SSqrTaRBXQzN8ZnOmp/TEUHycwgBXtiIZtdvNKNrsxlNsy0aeuE90Im2rr7gcY"
	"VIFUteQdHLwYPW0pQwR6zfnXqzVZla3w1h1Gk6X0+kRsgMtidQdU26JTQuaHMeVy"
	"HZScBPvD6aFOwh2h41OsLNuon4Lkh0fwUDNIKbCQacSX67H31x38Z6oywpLWGEud"
	"gcjfimBaHFRAYpZdFb2OehOHbe261HU+omBE7niH8Xmn7CfAOMLHuP11WN5fx22n"
	"wDdic6y4btrF4duR7/Pc+WVrEfc+yPilAAABDwAAAAdzc2gtcnNhAAABAEAIYnGv"
	"dF+hIfm621ixrFpODwdpIBkv1sPnAZS6d6Fl2uFzADxeq0XRoB7fcEdftmQmTm9T"
	"JHjIrEzTKQzKGQBZVp8qlUzD6EAQh1s90knqxZzLOy0CfwGDoiFgZ0gdK3cBQkNV"
	"Dn1jM7E8/2gEK6hoJ02DmbpeujOZzlBRH5E2gowQIJjJCRpyKcAxhJb2vWSIzW88"
	"UaJmzktg1b56w2d3BmhmS9Xyj9KXAjshqPbNvYfRhbtbMQbrXmGXRPgOwCGhOCQZ"
	"PVm7hm20eC/i3SQVtQgptirnToF6NOZzDooq4+Skd2CRAffKzCkvhqcYeNApGPwq"
	"iL509p0fEK3JemA=";
static const char CERT_HR[] =
	"AAAAHHNzaC1yc2EtY2VydC12MDFAb3BlbnNzaC5jb20AAAAg4CB5TksI1lUFgx0r"
	"/PbxgGzN6cJXuTFMKM+OG6L37bsAAAADAQABAAABAQCt4OWTLA7TJt8bhyYqXBlW"
	"JqAjPIqGFg5hJQxp0xHZfBDlhLmmmGSdUhpFP4uFHcV1exZkfGOkG1/bj52jn4Dq"
	"1gLB5GfR79727XenzoGSPO36jSLHTpsnCAIoo1h01TKGRrdwwIaxpilqY+x9n1Cw"
	"U7ADo3eEdyxW0T7teeGEL2ybCfikJ6nOAkAkVfhPWMu5lAfzkQay1hkWa5Xomnjf"
	"8p6LIbvGghqMoklkKE7frkla7r2E+JRDmd8Gei6RyonuiQGMFhPAgUfO0A8aCKyl"
	"Wn1dI4MphUXcrrFCw4YeJVZUDvIxq1lQPNNwP+ymGh/mDUJfnuELCGO8EudaIu/L"
	"AAAAAAAAAAAAAAACAAAAAmhyAAAADQAAAAkxMjcuMC4wLjEAAAAAAAAAAP//////"
	"////AAAAAAAAAAAAAAAAAAAAMwAAAAtzc2gtZWQyNTUxOQAAACBsTASyPaeY3DMx"
	"sCANTabb862PP/dyYtgXnlJovhFJdwAAAFMAAAALc3NoLWVkMjU1MTkAAABAvdtz"
	"hsh+B4EBEDEOHL9M3LDY5oOCreRDdoOPJI2cNUOi9O8Yl3588pOY8d+puTXZIwij"
	"VSog6pjswOmxrBR+DQ==";
static const char CERT_HE[] =
	"AAAAKGVjZHNhLXNoYTItbmlzdHAyNTYtY2VydC12MDFAb3BlbnNzaC5jb20AAAAg"
	"gvAt+/Si2j61haZCgUQJIe/unPAxPJPoDGE+1SkoqAkAAAAIbmlzdHAyNTYAAABB"
	"BPDLpVxzHDB3HkyWSoQjRVFPVNfT0tsst7l4NgM8m4m2eD1tQGbF0pRFifACL92r"
	"U/eYwT36sDrJR6Zr9kx1SzMAAAAAAAAAAAAAAAIAAAACaGUAAAANAAAACTEyNy4w"
	"LjAuMQAAAAAAAAAA//////////8AAAAAAAAAAAAAAAAAAAEXAAAAB3NzaC1yc2EA"
	"AAADAQABAAABAQC46dPs/5uy4D0r6NH+niNWjAfCsiSYK5eR5WKRBdhchmZF54nC"
	"Ru3Ok+SSqrTaRBXQzN8ZnOmp/TEUHycwgBXtiIZtdvNKNrsxlNsy0aeuE90Im2rr"
	"7gcYVIFUteQdHLwYPW0pQwR6zfnXqzVZla3w1h1Gk6X0+kRsgMtidQdU26JTQuaH"
	"MeVyHZScBPvD6aFOwh2h41OsLNuon4Lkh0fwUDNIKbCQacSX67H31x38Z6oywpLW"
	"GEudgcjfimBaHFRAYpZdFb2OehOHbe261HU+omBE7niH8Xmn7CfAOMLHuP11WN5f"
	"x22nwDdic6y4btrF4duR7/Pc+WVrEfc+yPilAAABFAAAAAxyc2Etc2hhMi0yNTYA"
	"AAEAU2pB3Nv5vxqTJRrc+7S9s7jo0Jmem1dcrcqSYNfJmfoiDlZSrGDRfSwjWlKl"
	"mOXKdzt72mRuD/6t66wvDJvINeoQT4i/mmnZsqzi5eY9ZBZbqu5JAzf0TQCPVrT5"
	"JiGHRybrO9u75EVy4VDJ+QoE/FaUsd6bvFT745IJPMzWIOqD4TXksy7U0tUwc9vE"
	"His9SI5rgoNgS5ME7s0qXav6+gruJIsgOGCpcF2T00PyQTWGlpwBmipuNwIeIreL"
	"baBDrBxEnCOxRQrAK4zpgFKzzSioJxFnMpAxVooUzt21LAgNwG+vBBVc1ATPztDQ"
	"1Fv8ZrBSDJCpzqwhkOxICucmrA==";

/* Base64 (RFC 4648, with padding) into a new buffer; *len its size. */
static unsigned char *unbase64(const char *s, size_t *len)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s), o = 0;
	unsigned char *out = malloc(n / 4 * 3 + 3);
	unsigned v = 0;
	int bits = 0;

	assert_non_null(out);
	for (size_t i = 0; i < n && s[i] != '='; i++) {
		const char *p = strchr(abc, s[i]);

		assert_non_null(p);
		v = v << 6 | (unsigned)(p - abc);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(v >> bits);
		}
	}
	*len = o;
	return out;
}

/* Parses a certificate given in base64; returns its parse status. */
static enum bf_err parse_b64(const char *b64, struct remote_cert *c,
			     char *why, size_t why_len)
{
	size_t n;
	unsigned char *blob = unbase64(b64, &n);
	enum bf_err err = remote_cert_parse(blob, n, c, why, why_len);

	free(blob);
	return err;
}

static void expect_blob(const unsigned char *blob, size_t len,
			const char *b64)
{
	size_t n;
	unsigned char *want = unbase64(b64, &n);

	assert_int_equal(len, n);
	assert_memory_equal(blob, want, n);
	free(want);
}

/* A certificate that parses; *c filled (caller frees). */
static void parse_ok(const char *b64, struct remote_cert *c)
{
	char why[256] = "";

	if (parse_b64(b64, c, why, sizeof why) != BF_OK)
		fail_msg("refused: %s", why);
}

static const char *check(const struct remote_cert *c, const char *name,
			 uint64_t now)
{
	const char *reason = NULL;

	if (remote_cert_check_host(c, name, now, &reason) == 0)
		return NULL;
	assert_non_null(reason);
	return reason;
}

static void test_valid_from_each_ca(void **state)
{
	static const struct {
		const char *cert, *ca, *ca_type, *sig_alg, *id;
	} v[] = {
		{ CERT_H_CA_ED, KEY_CA_ED, "ssh-ed25519", "ssh-ed25519",
		  "id-ca_ed" },
		{ CERT_H_CA_RSA, KEY_CA_RSA, "ssh-rsa", "rsa-sha2-512",
		  "id-ca_rsa" },
		{ CERT_H_CA_EC, KEY_CA_EC, "ecdsa-sha2-nistp256",
		  "ecdsa-sha2-nistp256", "id-ca_ec" },
		{ CERT_H_CA_EC384, KEY_CA_EC384, "ecdsa-sha2-nistp384",
		  "ecdsa-sha2-nistp384", "id-ca_ec384" },
	};
	uint64_t now = (uint64_t)time(NULL);

	(void)state;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		struct remote_cert c;

		parse_ok(v[i].cert, &c);
		assert_string_equal(c.type_name,
				    "ssh-ed25519-cert-v01@openssh.com");
		assert_string_equal(c.key_type, "ssh-ed25519");
		expect_blob(c.key_blob, c.key_blob_len, KEY_HOST);
		expect_blob(c.ca_blob, c.ca_blob_len, v[i].ca);
		assert_string_equal(c.ca_type, v[i].ca_type);
		assert_string_equal(c.sig_alg, v[i].sig_alg);
		assert_string_equal(c.key_id, v[i].id);
		assert_int_equal(c.serial, 7);
		assert_int_equal(c.cert_type, REMOTE_CERT_TYPE_HOST);
		assert_int_equal(c.nprincipals, 2);
		assert_string_equal(c.principals[0], "127.0.0.1");
		assert_string_equal(c.principals[1], "example.test");
		assert_null(check(&c, "127.0.0.1", now));
		assert_null(check(&c, "example.test", now));
		/* Principals are compared exactly (no patterns). */
		assert_string_equal(check(&c, "127.0.0.2", now),
				    "Certificate invalid: name is not a "
				    "listed principal");
		assert_non_null(check(&c, "*.test", now));
		remote_cert_free(&c);
	}
}

static void test_other_key_types(void **state)
{
	struct remote_cert c;
	uint64_t now = (uint64_t)time(NULL);

	(void)state;
	parse_ok(CERT_HR, &c);
	assert_string_equal(c.type_name, "ssh-rsa-cert-v01@openssh.com");
	assert_string_equal(c.key_type, "ssh-rsa");
	expect_blob(c.key_blob, c.key_blob_len, KEY_HOSTRSA);
	assert_null(check(&c, "127.0.0.1", now));
	remote_cert_free(&c);
	parse_ok(CERT_HE, &c);
	assert_string_equal(c.key_type, "ecdsa-sha2-nistp256");
	expect_blob(c.key_blob, c.key_blob_len, KEY_HOSTEC);
	assert_string_equal(c.sig_alg, "rsa-sha2-256");
	assert_null(check(&c, "127.0.0.1", now));
	remote_cert_free(&c);
}

static void test_refusals(void **state)
{
	struct remote_cert c;
	uint64_t now = (uint64_t)time(NULL);
	/* 2001-01-01T00:00:00Z, the end of CERT_H_EXPIRED's interval. */
	const uint64_t end_2000 = 978307200;

	(void)state;
	parse_ok(CERT_H_EXPIRED, &c);
	assert_string_equal(check(&c, "127.0.0.1", now),
			    "Certificate invalid: expired");
	assert_null(check(&c, "127.0.0.1", end_2000 - 1));
	assert_non_null(check(&c, "127.0.0.1", end_2000));
	remote_cert_free(&c);
	parse_ok(CERT_H_FUTURE, &c);
	assert_string_equal(check(&c, "127.0.0.1", now),
			    "Certificate invalid: not yet valid");
	remote_cert_free(&c);
	parse_ok(CERT_H_USER, &c);
	assert_int_equal(c.cert_type, REMOTE_CERT_TYPE_USER);
	assert_string_equal(check(&c, "127.0.0.1", now),
			    "Certificate invalid: not a host certificate");
	remote_cert_free(&c);
	parse_ok(CERT_H_CRIT, &c);
	assert_string_equal(check(&c, "127.0.0.1", now),
			    "Certificate contains unsupported critical "
			    "options");
	remote_cert_free(&c);
	/* Signed with ssh-rsa (SHA-1): the signature is good, the
	 * algorithm is not one of CASignatureAlgorithms. */
	parse_ok(CERT_H_SHA1, &c);
	assert_string_equal(c.sig_alg, "ssh-rsa");
	assert_string_equal(check(&c, "127.0.0.1", now),
			    "Certificate signed with disallowed algorithm");
	remote_cert_free(&c);
	/* No principals: good for any name (OpenSSH checks host
	 * certificates without require_principal). */
	parse_ok(CERT_H_NOPRINC, &c);
	assert_int_equal(c.nprincipals, 0);
	assert_null(check(&c, "anything.example", now));
	remote_cert_free(&c);
}

static void test_damaged(void **state)
{
	size_t n;
	unsigned char *blob = unbase64(CERT_H_CA_RSA, &n);
	unsigned char *longer = malloc(n + 1);
	struct remote_cert c;
	char why[256];

	(void)state;
	assert_non_null(longer);
	/* Every proper prefix is refused, without reading past it (the
	 * sanitizer build checks that). */
	for (size_t len = 0; len < n; len++) {
		unsigned char *cut = malloc(len ? len : 1);

		memcpy(cut, blob, len);
		if (remote_cert_parse(cut, len, &c, why, sizeof why) !=
		    BF_ERR_PARSE)
			fail_msg("prefix of %zu bytes taken", len);
		remote_cert_free(&c);
		free(cut);
	}
	memcpy(longer, blob, n);
	longer[n] = 0;
	assert_int_equal(remote_cert_parse(longer, n + 1, &c, why,
					   sizeof why), BF_ERR_PARSE);
	assert_string_equal(why, "bytes after the signature");
	remote_cert_free(&c);
	/* One signed byte changed (in the key id): the CA's signature no
	 * longer verifies. */
	{
		unsigned char *p = memmem(blob, n, "id-ca_rsa", 9);

		assert_non_null(p);
		p[0] = 'I';
		assert_int_equal(remote_cert_parse(blob, n, &c, why,
						   sizeof why), BF_ERR_PARSE);
		assert_string_equal(why, "the CA's rsa-sha2-512 signature "
				    "does not verify");
		remote_cert_free(&c);
	}
	/* A plain key is not a certificate. */
	free(blob);
	blob = unbase64(KEY_HOST, &n);
	assert_int_equal(remote_cert_parse(blob, n, &c, why, sizeof why),
			 BF_ERR_PARSE);
	assert_string_equal(why, "not a certificate");
	remote_cert_free(&c);
	free(blob);
	free(longer);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_from_each_ca),
		cmocka_unit_test(test_other_key_types),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
