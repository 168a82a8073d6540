// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// A small launchpad of ours for the chain-5042 tests: it creates ERC20 tokens inside its own
// transaction (no top-level creation is visible) and emits an event of its own ABI, which the
// service never decodes (the launch rule is ABI-free).

contract PadToken {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint256 supply, address owner) {
        name = name_;
        symbol = symbol_;
        totalSupply = supply;
        balanceOf[owner] = supply;
        emit Transfer(address(0), owner, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= value, "allowance");
            allowance[from][msg.sender] = allowed - value;
        }
        _move(from, to, value);
        return true;
    }

    function _move(address from, address to, uint256 value) internal {
        require(balanceOf[from] >= value, "balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}

contract Launchpad {
    event Launched(address indexed token, address indexed owner, string symbol);

    function launch(string calldata name_, string calldata symbol_, uint256 supply) external returns (address) {
        return launchFor(msg.sender, name_, symbol_, supply);
    }

    function launchFor(address owner, string calldata name_, string calldata symbol_, uint256 supply) public returns (address token) {
        token = address(new PadToken(name_, symbol_, supply, owner));
        emit Launched(token, owner, symbol_);
    }
}

// A contract that launches on a pad for its caller: the transaction is sent to the relay, and
// only the pad's log in it ties the launch to the pad.
contract Relay {
    function launchOn(Launchpad pad, string calldata name_, string calldata symbol_, uint256 supply) external returns (address) {
        return pad.launchFor(msg.sender, name_, symbol_, supply);
    }
}
